import { hashPassword, passwordProblem, verifyPassword } from '../../domain/password';
import {
  USER_CODE_ALPHABET,
  formatUserCode,
  generateUserCode,
  normalizeUserCode,
} from '../../domain/device-codes';

describe('passwords', () => {
  test('scrypt hash with its parameters; verifies the password and nothing else', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', hash)).toBe(false);
    expect(await hashPassword('correct horse battery staple')).not.toBe(hash); // salted
  });

  test('malformed hashes never verify', async () => {
    for (const bad of ['', 'scrypt$1$2$3', 'bcrypt$x$y$z$a$b', 'scrypt$x$8$1$AAAA$AAAA']) {
      expect(await verifyPassword('x', bad)).toBe(false);
    }
  });

  test('length rules: 12 to 256 characters', () => {
    expect(passwordProblem('a'.repeat(11))).not.toBeNull();
    expect(passwordProblem('a'.repeat(12))).toBeNull();
    expect(passwordProblem('a'.repeat(256))).toBeNull();
    expect(passwordProblem('a'.repeat(257))).not.toBeNull();
  });
});

describe('user codes', () => {
  test('8 unambiguous consonants, shown XXXX-XXXX, read back however typed', () => {
    for (let i = 0; i < 200; i++) {
      const code = generateUserCode();
      expect(code).toMatch(new RegExp(`^[${USER_CODE_ALPHABET}]{8}$`));
      const shown = formatUserCode(code);
      expect(shown).toMatch(/^.{4}-.{4}$/);
      expect(normalizeUserCode(shown)).toBe(code);
      expect(normalizeUserCode(shown.toLowerCase().replace('-', ' '))).toBe(code);
    }
    expect(USER_CODE_ALPHABET).not.toMatch(/[AEIOUY0-9]/);
    expect(normalizeUserCode('BCDF-GHJ')).toBeNull();
    expect(normalizeUserCode('BCDF-GHJA')).toBeNull();
  });
});
