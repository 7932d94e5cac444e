/**
 * The A2A AgentCard of the served agent, projected from its manifest as the CKP-A2A profile
 * (§5) maps it: Identity gives the name, version and a short description (never the whole
 * personality: the profile keeps raw prompts out of the card), each Skill an AgentSkill (labels
 * and required tools as tags; input schemas in an extension's params, A2A having no schema
 * field), the listener its interfaces and the bearer scheme it wants.
 */
import type { AgentCard, AgentInterface, AgentSkill } from '@a2a-js/sdk';
import type { ResolvedClaw } from '../ckp/index.js';
import { PINCER_VERSION } from '../product.js';

/** The extension whose params carry each skill's `input_schema` (CKP-A2A §5.2). */
export const SKILL_SCHEMAS_EXTENSION = 'urn:clawkernel:a2a:skill-input-schema';

/** Longest description taken from the personality: a summary, not the prompt. */
const DESCRIPTION_MAX = 200;

export interface CardOptions {
  /** Where the JSON-RPC endpoint listens; none when only CKP's claw.task.* serve the tasks. */
  interfaces: AgentInterface[];
  /** Push notifications are offered (the listener was given where it may send them). */
  push: boolean;
}

export function agentCardOf(claw: ResolvedClaw, options: CardOptions): AgentCard {
  const identity = claw.identity;
  const schemas = Object.fromEntries(
    claw.skills.flatMap((skill) =>
      skill.spec.input_schema ? [[skill.name, skill.spec.input_schema]] : [],
    ),
  );
  return {
    name: identity.name,
    description: claw.description?.trim() || summaryOf(identity.spec.personality),
    supportedInterfaces: options.interfaces,
    provider: undefined,
    version: identity.version || PINCER_VERSION,
    capabilities: {
      streaming: true,
      pushNotifications: options.push,
      extensions: Object.keys(schemas).length
        ? [
            {
              uri: SKILL_SCHEMAS_EXTENSION,
              description: "Each skill's input JSON Schema, by skill id",
              required: false,
              params: schemas,
            },
          ]
        : [],
      extendedAgentCard: false,
    },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            description: 'The token the server printed or was given',
            scheme: 'Bearer',
            bearerFormat: '',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills: claw.skills.map(
      (skill): AgentSkill => ({
        id: skill.name,
        name: skill.name.replace(/[-_]+/g, ' '),
        description: skill.spec.description,
        tags: [
          ...Object.entries(skill.labels).map(([key, value]) => `${key}:${value}`),
          ...skill.spec.tools_required,
        ],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      }),
    ),
    signatures: [],
  };
}

/** The personality's first sentence, cut to a short line. */
function summaryOf(personality: string): string {
  const first = personality.trim().split(/(?<=[.!?])\s/)[0] ?? '';
  return first.length <= DESCRIPTION_MAX ? first : `${first.slice(0, DESCRIPTION_MAX - 1)}…`;
}
