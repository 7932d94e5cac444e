import type { ToolHost } from '../runtime/hooks.js';
import type { ContentScanner, Findings } from './scanner.js';

/**
 * Wraps a tool host so every output passes the scanner before the model sees it: secrets
 * redacted, prompt injection flagged or withheld, oversize output cut. Every other method is
 * the inner host's (validation included: an invalid call never reaches a person).
 */
export function screenedTools(
  host: ToolHost,
  scanner: ContentScanner,
  onFindings?: (tool: string, findings: Findings) => void,
): ToolHost {
  return {
    definitions: () => host.definitions(),
    isReadOnly: (name) => host.isReadOnly(name),
    validate: (call) => host.validate(call),
    execute: async (call, context) => {
      const outcome = await host.execute(call, context);
      const screened = scanner.screenToolOutput(outcome.content);
      if (screened.findings.secrets.length || screened.findings.injection.length) {
        onFindings?.(call.name, screened.findings);
      }
      return {
        content: screened.content,
        isError: outcome.isError || screened.blocked,
        ...(outcome.code !== undefined ? { code: outcome.code } : {}),
      };
    },
  };
}
