/**
 * The secrets key of every test stack and of the API processes tests spawn beside it (they share a
 * database, so they must share the key that seals its signing secrets; decision 0112).
 */
export const TEST_SECRETS_KEY = 'a3f1c2d4e5b60718293a4b5c6d7e8f90112233445566778899aabbccddeeff00';
