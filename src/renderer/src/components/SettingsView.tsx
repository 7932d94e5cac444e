/** Settings: models (with downloads), providers and keys, autonomy and policies, skills and
 * memory, channels, appearance, the desktop shell, the local OpenAI-compatible API. Secret values go in, never come back out. */
import { useState } from 'react';
import type { Settings } from '../../../shared/ipc';
import { AppearanceSection } from './settings/AppearanceSection';
import { AutonomySection } from './settings/AutonomySection';
import { BehaviourSection } from './settings/BehaviourSection';
import { ChannelsSection } from './settings/ChannelsSection';
import { DesktopSection } from './settings/DesktopSection';
import { LocalApiSection } from './settings/LocalApiSection';
import { McpSection } from './settings/McpSection';
import { ModelsSection } from './settings/ModelsSection';
import { ProvidersSection } from './settings/ProvidersSection';
import { SkillsSection } from './settings/SkillsSection';
import { WorkspaceSection } from './settings/WorkspaceSection';

export type Section =
  | 'models'
  | 'providers'
  | 'autonomy'
  | 'behaviour'
  | 'workspace'
  | 'skills'
  | 'mcp'
  | 'channels'
  | 'appearance'
  | 'desktop'
  | 'localApi';

const SECTIONS: Array<[Section, string]> = [
  ['models', 'Models'],
  ['providers', 'Providers & keys'],
  ['autonomy', 'Autonomy & policies'],
  ['behaviour', 'Model behaviour'],
  ['workspace', 'Workspace'],
  ['skills', 'Skills & memory'],
  ['mcp', 'MCP servers'],
  ['channels', 'Channels'],
  ['appearance', 'Appearance & keyboard'],
  ['desktop', 'Desktop'],
  ['localApi', 'Local API'],
];

export function SettingsView({
  settings,
  onChange,
  initialSection = 'models',
}: {
  settings: Settings;
  onChange: (patch: Partial<Settings>) => void;
  initialSection?: Section;
}) {
  const [section, setSection] = useState<Section>(initialSection);
  return (
    <section className="settings" aria-label="Settings">
      <nav className="settings-nav" aria-label="Settings sections">
        <h2>Settings</h2>
        {SECTIONS.map(([id, label]) => (
          <button
            key={id}
            type="button"
            className={section === id ? 'active' : ''}
            aria-current={section === id ? 'page' : undefined}
            onClick={() => setSection(id)}
          >
            {label}
          </button>
        ))}
      </nav>
      <div className="settings-body">
        <h2>{SECTIONS.find(([id]) => id === section)?.[1]}</h2>
        {section === 'models' && <ModelsSection />}
        {section === 'providers' && <ProvidersSection />}
        {section === 'autonomy' && <AutonomySection />}
        {section === 'behaviour' && (
          // Saved values (loaded late, or changed elsewhere) replace the draft.
          <BehaviourSection
            key={`${settings.systemPrompt}\u0000${settings.temperature}\u0000${settings.contextSize}`}
            settings={settings}
            onChange={onChange}
          />
        )}
        {section === 'workspace' && <WorkspaceSection />}
        {section === 'skills' && <SkillsSection />}
        {section === 'mcp' && <McpSection />}
        {section === 'channels' && <ChannelsSection />}
        {section === 'appearance' && <AppearanceSection settings={settings} onChange={onChange} />}
        {section === 'desktop' && <DesktopSection />}
        {section === 'localApi' && <LocalApiSection />}
      </div>
    </section>
  );
}
