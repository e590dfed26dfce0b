import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signGet } from '@foghorn/plugin-route53';

// AWS's Signature Version 4 test suite (aws-sig-v4-test-suite): get-vanilla and
// get-vanilla-query-order-key-case, with the suite's example credentials.
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const at = new Date(Date.UTC(2015, 7, 30, 12, 36, 0));
const scope = 'Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date';

test('SigV4 signs as AWS\'s test suite says (get-vanilla, get-vanilla-query-order-key-case)', () => {
  assert.deepEqual(signGet(new URL('https://example.amazonaws.com/'), credentials, 'us-east-1', 'service', at), {
    'x-amz-date': '20150830T123600Z',
    authorization: `AWS4-HMAC-SHA256 ${scope}, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31`,
  });
  assert.equal(
    signGet(new URL('https://example.amazonaws.com/?Param2=value2&Param1=value1'), credentials, 'us-east-1', 'service', at).authorization,
    `AWS4-HMAC-SHA256 ${scope}, Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500`,
  );
  // Temporary credentials sign their session token too.
  const signed = signGet(new URL('https://example.amazonaws.com/'), { ...credentials, sessionToken: 'TOKEN' }, 'us-east-1', 'service', at);
  assert.equal(signed['x-amz-security-token'], 'TOKEN');
  assert.match(signed.authorization!, /SignedHeaders=host;x-amz-date;x-amz-security-token, /);
});
