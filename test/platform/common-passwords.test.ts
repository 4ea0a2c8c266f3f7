import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMON_PASSWORDS_FILE, generateCommonPasswords } from '../../scripts/gen-common-passwords.js';
import { newPasswordRefusal } from '../../src/platform/security/passwords.js';

describe('the common-password list', () => {
  it('src/platform/security/common-passwords.ts is what the package generates now (else run: npx tsx scripts/gen-common-passwords.ts)', () => {
    expect(readFileSync(COMMON_PASSWORDS_FILE, 'utf8') === generateCommonPasswords(), 'the list is stale').toBe(true);
  });

  it('refuses listed passwords whatever their case, and only whole entries', async () => {
    for (const password of ['password', 'Password', 'QWERTY123', 'iloveyou', 'dragon'])
      expect(await newPasswordRefusal('password', password), password).toMatch(/most commonly used/);
    // parts of two neighbouring entries, an entry with more around it, one across a line break
    for (const password of [
      'passwordx',
      'xpassword',
      'benchmark-password',
      '123456\npassword',
      'correct horse battery staple',
    ])
      expect(await newPasswordRefusal('password', password), JSON.stringify(password)).toBeNull();
  });
});
