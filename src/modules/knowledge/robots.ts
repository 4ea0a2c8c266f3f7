/**
 * robots.txt rules for one user agent: the group naming it, else the `*` group. Longest matching
 * rule wins, Allow beats Disallow on a tie (RFC 9309); `*` and `$` wildcards are understood.
 */
export class RobotsRules {
  private constructor(
    private readonly rules: Array<{ allow: boolean; pattern: string; regex: RegExp }>,
    readonly sitemaps: string[],
  ) {}

  static allowAll(): RobotsRules {
    return new RobotsRules([], []);
  }

  static parse(text: string, userAgent: string): RobotsRules {
    const agent = userAgent.toLowerCase();
    const groups: Array<{ agents: string[]; rules: Array<{ allow: boolean; pattern: string }> }> = [];
    const sitemaps: string[] = [];
    let current: (typeof groups)[number] | null = null;
    let lastWasAgent = false;
    for (const rawLine of text.split(/\r?\n/)) {
      const line = rawLine.replace(/#.*$/, '').trim();
      const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
      if (!m) continue;
      const key = m[1]!.toLowerCase();
      const value = m[2]!.trim();
      if (key === 'user-agent') {
        if (!current || !lastWasAgent) {
          current = { agents: [], rules: [] };
          groups.push(current);
        }
        current.agents.push(value.toLowerCase());
        lastWasAgent = true;
        continue;
      }
      lastWasAgent = false;
      if (key === 'sitemap' && value) sitemaps.push(value);
      else if ((key === 'allow' || key === 'disallow') && current && value)
        current.rules.push({ allow: key === 'allow', pattern: value });
    }
    const mine = groups.filter((g) => g.agents.some((a) => a !== '*' && agent.includes(a)));
    const chosen = mine.length ? mine : groups.filter((g) => g.agents.includes('*'));
    const rules = chosen.flatMap((g) => g.rules).map((r) => ({ ...r, regex: toRegex(r.pattern) }));
    return new RobotsRules(rules, sitemaps);
  }

  allows(pathAndQuery: string): boolean {
    let best: { allow: boolean; length: number } | null = null;
    for (const rule of this.rules) {
      if (!rule.regex.test(pathAndQuery)) continue;
      const length = rule.pattern.length;
      if (!best || length > best.length || (length === best.length && rule.allow)) best = { allow: rule.allow, length };
    }
    return best ? best.allow : true;
  }
}

function toRegex(pattern: string): RegExp {
  const anchored = pattern.endsWith('$');
  const body = (anchored ? pattern.slice(0, -1) : pattern)
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}${anchored ? '$' : ''}`);
}
