import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADMIN_TYPES_FILE, generateAdminTypes } from '../../scripts/gen-admin-types.js';

/**
 * admin-ui/src/api-types.ts is generated from the app's /openapi.json; the admin UI's types
 * (admin-ui/src/types.ts) are derived from it. A route whose answer changed without the file
 * being regenerated fails here, not in an owner's browser.
 */
describe('admin UI types', () => {
  it('admin-ui/src/api-types.ts is what /openapi.json generates now (else run: npx tsx scripts/gen-admin-types.ts)', async () => {
    const committed = readFileSync(ADMIN_TYPES_FILE, 'utf8');
    expect(
      committed === (await generateAdminTypes()),
      'admin-ui/src/api-types.ts is stale: run npx tsx scripts/gen-admin-types.ts',
    ).toBe(true);
  });
});
