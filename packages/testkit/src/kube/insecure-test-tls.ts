/**
 * TEST-ONLY, INSECURE: a self-signed certificate and its private key for 127.0.0.1, ::1 and
 * localhost, published on purpose. The test API server uses them only when the `openssl` CLI is
 * missing (it otherwise generates a fresh pair per process). Never use them outside tests.
 */

export const insecureTestCertPem = `-----BEGIN CERTIFICATE-----
MIIBrTCCAVSgAwIBAgIUEtSmTwEql6fg9GLK6blZdO8QHOYwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEzMDExNDk1MloYDzIxMjYxMTA2
MTE0OTUyWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQhwWRJF0NmbNzmKjeL7dRluTNyux/2KxPBsB4QyxBcZIykVSnKyV7M
DiBk105C/tjW/jlopmUQfOK/MC69VLopo4GBMH8wHQYDVR0OBBYEFENgC/+y/4aG
iIT2WSWtTIyDlJDwMB8GA1UdIwQYMBaAFENgC/+y/4aGiIT2WSWtTIyDlJDwMA8G
A1UdEwEB/wQFMAMBAf8wLAYDVR0RBCUwI4cEfwAAAYcQAAAAAAAAAAAAAAAAAAAA
AYIJbG9jYWxob3N0MAoGCCqGSM49BAMCA0cAMEQCICj0PSzA003YKXkGIplarmnq
C9u1QEddBT3VTzsmp1WNAiAcpQbTuRdQ4dC3ALXWP5Umd9DdVa4DszOMzXtL/TIB
AA==
-----END CERTIFICATE-----
`;

export const insecureTestKeyPem = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQguaHb8VItjFOBIZ9N
aGanjnMtj0DozTWnzHFfAT1R2rqhRANCAAQhwWRJF0NmbNzmKjeL7dRluTNyux/2
KxPBsB4QyxBcZIykVSnKyV7MDiBk105C/tjW/jlopmUQfOK/MC69VLop
-----END PRIVATE KEY-----
`;
