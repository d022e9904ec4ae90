import { EMPTY_SHA256, signV4 } from '../../adapters/object-store/sigv4';

// AWS's published example of a SigV4 header signature for S3 ("Example: GET Object": the first
// ten bytes of test.txt in examplebucket, with the documentation's example keys).
test('the signature of the S3 GET Object example is the published one', () => {
  const headers = signV4(
    {
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      headers: { range: 'bytes=0-9' },
      payloadSha256: EMPTY_SHA256,
      region: 'us-east-1',
      now: new Date('2013-05-24T00:00:00Z'),
    },
    { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
  );
  expect(EMPTY_SHA256).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  expect(headers['x-amz-date']).toBe('20130524T000000Z');
  expect(headers.authorization).toBe(
    'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
  );
});
