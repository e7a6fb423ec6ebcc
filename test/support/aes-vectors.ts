// Known answers for AES, AES-GCM and AES-GCM-SIV, transcribed from the documents named on each
// group. Shared by the reference tests and the kernel tests.

/** FIPS 197 Appendix C (example vectors) and Appendix B (cipher example). */
export const FIPS197_CIPHER: { source: string; key: string; pt: string; ct: string }[] = [
  { source: 'FIPS 197 App. B', key: '2b7e151628aed2a6abf7158809cf4f3c', pt: '3243f6a8885a308d313198a2e0370734', ct: '3925841d02dc09fbdc118597196a0b32' },
  { source: 'FIPS 197 C.1', key: '000102030405060708090a0b0c0d0e0f', pt: '00112233445566778899aabbccddeeff', ct: '69c4e0d86a7b0430d8cdb78070b4c55a' },
  { source: 'FIPS 197 C.2', key: '000102030405060708090a0b0c0d0e0f1011121314151617', pt: '00112233445566778899aabbccddeeff', ct: 'dda97ca4864cdfe06eaf70a0ec0d7191' },
  { source: 'FIPS 197 C.3', key: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', pt: '00112233445566778899aabbccddeeff', ct: '8ea2b7ca516745bfeafc49904b496089' },
];

/** FIPS 197 Appendix A: key expansion examples (the second and the last round key). */
export const FIPS197_EXPANSION: { source: string; key: string; round1: string; last: string }[] = [
  { source: 'FIPS 197 A.1', key: '2b7e151628aed2a6abf7158809cf4f3c', round1: 'a0fafe1788542cb123a339392a6c7605', last: 'd014f9a8c9ee2589e13f0cc8b6630ca6' },
  { source: 'FIPS 197 A.2', key: '8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b', round1: '62f8ead2522c6b7bfe0c91f72402f5a5', last: 'e98ba06f448c773c8ecc720401002202' },
  { source: 'FIPS 197 A.3', key: '603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4', round1: '1f352c073b6108d72d9810a30914dff4', last: 'fe4890d1e6188d0b046df344706c631e' },
];

export interface AeadVector {
  source: string;
  key: string;
  nonce: string;
  aad: string;
  pt: string;
  ct: string;
  tag: string;
}

const P60 = 'd9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39';
const P64 = P60 + '1aafd255';
const A20 = 'feedfacedeadbeeffeedfacedeadbeefabaddad2';
const N12 = 'cafebabefacedbaddecaf888';
const N8 = 'cafebabefacedbad';
const N60 = '9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b';
const K128 = 'feffe9928665731c6d6a8f9467308308';
const K192 = K128 + 'feffe9928665731c';
const K256 = K128 + K128;
const Z = (n: number) => '00'.repeat(n);

/** The GCM specification's test cases 1–18 (McGrew and Viega, "The Galois/Counter Mode of Operation", Appendix B). */
export const GCM_SPEC: AeadVector[] = [
  { source: 'GCM spec TC1', key: Z(16), nonce: Z(12), aad: '', pt: '', ct: '', tag: '58e2fccefa7e3061367f1d57a4e7455a' },
  { source: 'GCM spec TC2', key: Z(16), nonce: Z(12), aad: '', pt: Z(16), ct: '0388dace60b6a392f328c2b971b2fe78', tag: 'ab6e47d42cec13bdf53a67b21257bddf' },
  { source: 'GCM spec TC3', key: K128, nonce: N12, aad: '', pt: P64, ct: '42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985', tag: '4d5c2af327cd64a62cf35abd2ba6fab4' },
  { source: 'GCM spec TC4', key: K128, nonce: N12, aad: A20, pt: P60, ct: '42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091', tag: '5bc94fbc3221a5db94fae95ae7121a47' },
  { source: 'GCM spec TC5', key: K128, nonce: N8, aad: A20, pt: P60, ct: '61353b4c2806934a777ff51fa22a4755699b2a714fcdc6f83766e5f97b6c742373806900e49f24b22b097544d4896b424989b5e1ebac0f07c23f4598', tag: '3612d2e79e3b0785561be14aaca2fccb' },
  { source: 'GCM spec TC6', key: K128, nonce: N60, aad: A20, pt: P60, ct: '8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca701e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5', tag: '619cc5aefffe0bfa462af43c1699d050' },
  { source: 'GCM spec TC7', key: Z(24), nonce: Z(12), aad: '', pt: '', ct: '', tag: 'cd33b28ac773f74ba00ed1f312572435' },
  { source: 'GCM spec TC8', key: Z(24), nonce: Z(12), aad: '', pt: Z(16), ct: '98e7247c07f0fe411c267e4384b0f600', tag: '2ff58d80033927ab8ef4d4587514f0fb' },
  { source: 'GCM spec TC9', key: K192, nonce: N12, aad: '', pt: P64, ct: '3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710acade256', tag: '9924a7c8587336bfb118024db8674a14' },
  { source: 'GCM spec TC10', key: K192, nonce: N12, aad: A20, pt: P60, ct: '3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710', tag: '2519498e80f1478f37ba55bd6d27618c' },
  { source: 'GCM spec TC11', key: K192, nonce: N8, aad: A20, pt: P60, ct: '0f10f599ae14a154ed24b36e25324db8c566632ef2bbb34f8347280fc4507057fddc29df9a471f75c66541d4d4dad1c9e93a19a58e8b473fa0f062f7', tag: '65dcc57fcf623a24094fcca40d3533f8' },
  { source: 'GCM spec TC12', key: K192, nonce: N60, aad: A20, pt: P60, ct: 'd27e88681ce3243c4830165a8fdcf9ff1de9a1d8e6b447ef6ef7b79828666e4581e79012af34ddd9e2f037589b292db3e67c036745fa22e7e9b7373b', tag: 'dcf566ff291c25bbb8568fc3d376a6d9' },
  { source: 'GCM spec TC13', key: Z(32), nonce: Z(12), aad: '', pt: '', ct: '', tag: '530f8afbc74536b9a963b4f1c4cb738b' },
  { source: 'GCM spec TC14', key: Z(32), nonce: Z(12), aad: '', pt: Z(16), ct: 'cea7403d4d606b6e074ec5d3baf39d18', tag: 'd0d1c8a799996bf0265b98b5d48ab919' },
  { source: 'GCM spec TC15', key: K256, nonce: N12, aad: '', pt: P64, ct: '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad', tag: 'b094dac5d93471bdec1a502270e3cc6c' },
  { source: 'GCM spec TC16', key: K256, nonce: N12, aad: A20, pt: P60, ct: '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662', tag: '76fc6ece0f4e1768cddf8853bb2d551b' },
  { source: 'GCM spec TC17', key: K256, nonce: N8, aad: A20, pt: P60, ct: 'c3762df1ca787d32ae47c13bf19844cbaf1ae14d0b976afac52ff7d79bba9de0feb582d33934a4f0954cc2363bc73f7862ac430e64abe499f47c9b1f', tag: '3a337dbf46a792c45e454913fe2ea8f2' },
  { source: 'GCM spec TC18', key: K256, nonce: N60, aad: A20, pt: P60, ct: '5a8def2f0c9e53f1f75d7853659e2a20eeb2b22aafde6419a058ab4f6f746bf40fc0c3b780f244452da3ebf1c5d82cdea2418997200ef82e44ae7e3f', tag: 'a44a8266ee1c8eb0c8b5d4cf5ae9f19a' },
];

const SIVK128 = '01000000000000000000000000000000';
const SIVK256 = SIVK128 + Z(16);
const SIVN = '030000000000000000000000';

/**
 * RFC 8452 Appendix C: a selection of C.1 and C.2 and both C.3 counter-wrap cases, transcribed
 * here; the whole appendix (50 vectors) is also in Wycheproof's aes_gcm_siv_test.json with the
 * comment "RFC 8452", which the Wycheproof test runs.
 */
export const RFC8452: AeadVector[] = [
  { source: 'RFC 8452 C.1 (0 bytes)', key: SIVK128, nonce: SIVN, aad: '', pt: '', ct: '', tag: 'dc20e2d83f25705bb49e439eca56de25' },
  { source: 'RFC 8452 C.1 (8 bytes)', key: SIVK128, nonce: SIVN, aad: '', pt: '0100000000000000', ct: 'b5d839330ac7b786', tag: '578782fff6013b815b287c22493a364c' },
  { source: 'RFC 8452 C.2 (8 bytes, 1 byte AAD)', key: SIVK256, nonce: SIVN, aad: '01', pt: '0200000000000000', ct: '1de22967237a8132', tag: '91213f267e3b452f02d01ae33e4ec854' },
  {
    source: 'RFC 8452 C.2 (64 bytes, 1 byte AAD)',
    key: SIVK256,
    nonce: SIVN,
    aad: '01',
    pt: '02000000000000000000000000000000' + '03000000000000000000000000000000' + '04000000000000000000000000000000' + '05000000000000000000000000000000',
    ct: '67fd45e126bfb9a79930c43aad2d36967d3f0e4d217c1e551f59727870beefc98cb933a8fce9de887b1e40799988db1fc3f91880ed405b2dd298318858467c89',
    tag: '5bde0285037c5de81e5b570a049b62a0',
  },
  {
    source: 'RFC 8452 C.2 (20 bytes, 18 bytes AAD)',
    key: SIVK256,
    nonce: SIVN,
    aad: '010000000000000000000000000000000200',
    pt: '0300000000000000000000000000000004000000',
    ct: '43dd0163cdb48f9fe3212bf61b201976067f342b',
    tag: 'b879ad976d8242acc188ab59cabfe307',
  },
  { source: 'RFC 8452 C.2 (3 bytes, 5 bytes AAD)', key: 'bae8e37fc83441b16034566b7a806c46bb91c3c5aedb64a6c590bc84d1a5e269', nonce: 'e4b47801afc0577e34699b9e', aad: '4fbdc66f14', pt: '671fdd', ct: '0eaccb', tag: '93da9bb81333aee0c785b240d319719d' },
  { source: 'RFC 8452 C.3 (counter wrap, 32 bytes)', key: Z(32), nonce: Z(12), aad: '', pt: Z(16) + '4db923dc793ee6497c76dcc03a98e108', ct: 'f3f80f2cf0cb2dd9c5984fcda908456cc537703b5ba70324a6793a7bf218d3ea', tag: 'ffffffff000000000000000000000000' },
  { source: 'RFC 8452 C.3 (counter wrap, 24 bytes)', key: Z(32), nonce: Z(12), aad: '', pt: 'eb3640277c7ffd1303c7a542d02d3e4c0000000000000000', ct: '18ce4f0b8cb4d0cac65fea8f79257b20888e53e72299e56d', tag: 'ffffffff000000000000000000000000' },
];
