import { useSession } from '../../session.js';
import type { Agent } from '../../types.js';
import { Notice } from '../../ui.js';
import { AppearanceSection } from './appearance.js';
import { BehaviourSection } from './behaviour.js';
import { AllowedDomains } from './domains.js';
import { EngagementSection } from './engagement.js';
import { GeneralSection } from './general.js';
import { HoursSection } from './hours.js';
import { LeadsSection } from './leads.js';
import type { AgentSettings, SettingsDrafts, UpdateDrafts } from './model.js';
import { RateSection } from './rate.js';
import { TextsSection } from './texts.js';

export { NO_DRAFTS, unsavedSettings, type SettingsDrafts, type UpdateDrafts } from './model.js';

export function SettingsTab(props: {
  agent: Agent;
  onSaved: (a: Agent) => void;
  onDelete: () => void;
  drafts: SettingsDrafts;
  updateDrafts: UpdateDrafts;
}) {
  const { onSaved, onDelete, drafts, updateDrafts } = props;
  const agent = props.agent as AgentSettings;
  const { status } = useSession();
  const providerHasKey = status ? status.providers[agent.provider] : true;
  const common = { agent, onSaved, drafts, updateDrafts };
  return (
    <div class="stack-lg">
      {status && !providerHasKey && !status.knowledge_only && (
        <Notice kind="warning">
          The server has no key for {agent.provider}: this agent answers from its knowledge base only until one is set,
          or until you pick a configured provider.
        </Notice>
      )}
      <GeneralSection {...common} />
      <BehaviourSection {...common} />
      <AppearanceSection {...common} />
      <TextsSection {...common} />
      <LeadsSection {...common} />
      <EngagementSection {...common} />
      <HoursSection {...common} />
      <RateSection {...common} />
      <AllowedDomains {...common} />

      <section class="card section danger-zone" aria-labelledby="danger-title">
        <h2 id="danger-title">Delete this agent</h2>
        <p class="muted">Removes the agent with its knowledge, conversations and leads.</p>
        <div class="actions">
          <button type="button" class="btn btn-danger" onClick={onDelete}>
            Delete agent…
          </button>
        </div>
      </section>
    </div>
  );
}
