import type { ContentScanner, Findings } from '../policy/index.js';
import type { ToolHost, ToolOutcome } from '../tools/index.js';

/**
 * Wraps a tool host so every outcome passes the scanner before anyone sees it: secrets
 * redacted, prompt injection flagged or withheld, oversize output cut. This is the one place
 * tool text is screened; the runtime stores, pushes and sends to the model what leaves here,
 * so a tool's failure and a validation error are screened like its output. Every method of the
 * host is kept (validation included: an invalid call never reaches a person).
 */
export function screenedTools(
  host: ToolHost,
  scanner: ContentScanner,
  onFindings?: (tool: string, findings: Findings) => void,
): ToolHost {
  const screen = (tool: string, outcome: ToolOutcome): ToolOutcome => {
    const screened = scanner.screenToolOutput(outcome.content);
    if (screened.findings.secrets.length || screened.findings.injection.length) {
      onFindings?.(tool, screened.findings);
    }
    return {
      content: screened.content,
      isError: outcome.isError || screened.blocked,
      ...(outcome.code !== undefined ? { code: outcome.code } : {}),
    };
  };
  return {
    definitions: (scope) => host.definitions(scope),
    isReadOnly: (name) => host.isReadOnly(name),
    prepare: (name) => host.prepare(name),
    // Unknown tools and bad arguments are answered before the policy is asked: without this
    // an unknown tool read as a policy denial, and a person was asked to approve a broken call.
    validate: async (call) => {
      const invalid = await host.validate(call);
      return invalid && screen(call.name, invalid);
    },
    execute: async (call, context) => {
      let outcome: ToolOutcome;
      try {
        outcome = await host.execute(call, context);
      } catch (error) {
        outcome = {
          content: `tool failed: ${error instanceof Error ? error.message : String(error)}`,
          isError: true,
        };
      }
      return screen(call.name, outcome);
    },
  };
}

/**
 * A description a tool's source wrote (an MCP server's): secrets redacted, and withheld when it
 * reads like instructions to the model, whatever the scanner's action for tool output, since
 * the model reads a tool list as its own context rather than as data.
 */
export function screenedDescription(scanner: ContentScanner, text: string): string {
  const redacted = scanner.redactSecrets(text).text;
  if (scanner.injectionAction === 'ignore') return redacted;
  // The phrases found are not quoted back: they are the very text being kept from the model.
  return scanner.findInjection(redacted).length
    ? '[description withheld: its server wrote text that reads like instructions to you]'
    : redacted;
}
