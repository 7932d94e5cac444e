import type { ToolHost } from '../runtime/hooks.js';
import type { ContentScanner, Findings } from './scanner.js';

/**
 * Wraps a tool host so every output passes the scanner before the model sees it: secrets
 * redacted, prompt injection flagged or withheld, oversize output cut.
 */
export function screenedTools(
  host: ToolHost,
  scanner: ContentScanner,
  onFindings?: (tool: string, findings: Findings) => void,
): ToolHost {
  return {
    definitions: () => host.definitions(),
    isReadOnly: (name) => host.isReadOnly(name),
    // Unknown tools and bad arguments are answered before the policy is asked: without this
    // an unknown tool read as a policy denial, and a person was asked to approve a broken call.
    validate: (call) => host.validate?.(call),
    execute: async (call, context) => {
      const outcome = await host.execute(call, context);
      const screened = scanner.screenToolOutput(outcome.content);
      if (screened.findings.secrets.length || screened.findings.injection.length) {
        onFindings?.(call.name, screened.findings);
      }
      return { content: screened.content, isError: outcome.isError || screened.blocked };
    },
  };
}
