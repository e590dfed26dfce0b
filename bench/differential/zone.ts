/** A small zone the differential cases of several plugins serve with *file*. */
export const exampleOrgZone = [
  '$ORIGIN example.org.',
  '@ 3600 IN SOA ns.example.org. admin.example.org. 2024010101 7200 3600 1209600 300',
  '@ 3600 IN NS ns.example.org.',
  'ns 3600 IN A 192.0.2.53',
  'www 3600 IN A 192.0.2.80',
  'www 3600 IN AAAA 2001:db8::80',
  'alias 3600 IN CNAME www.example.org.',
  '',
].join('\n');
