import type { Command } from 'commander';
import { loadActiveClaw, resourcesDirOf } from '../../core/ckp/index.js';
import { createSecretStore } from '../../core/secrets/index.js';
import {
  agentLeader,
  agentWorker,
  type DeadLetter,
  memberPlace,
  openSwarm,
  type Peer,
  SwarmCoordinator,
  SwarmError,
  subLeaderWorker,
  swarmQueues,
} from '../../core/swarm/index.js';
import {
  addModelChoiceOptions,
  addModelOptions,
  checkModelChoice,
  type ModelChoiceOptions,
  openCliAgent,
} from '../agent-options.js';
import { type CliContext, ExitCode } from '../context.js';
import type { SetExitCode } from '../program.js';
import { stopSignal } from '../stop-signal.js';

/**
 * `pincer swarm run|status|join`: the manifest's swarm (CKP §5.9) from the command line. `run`
 * leads one operation with this agent as the leader (the root of a hierarchy); `join` serves
 * tasks until Ctrl+C, as a worker or, in a hierarchy, as the agent `--as` names (a sub-leader
 * leads its own workers); `status` lists the members discovery sees and the dead letters.
 */
export function registerSwarm(program: Command, ctx: CliContext, setExit: SetExitCode) {
  const swarm = program.command('swarm').description("run or join the manifest's swarm");

  addModelChoiceOptions(
    addModelOptions(
      swarm
        .command('run')
        .description(
          'lead one swarm operation: the goal goes to the workers, their answers are combined',
        )
        .argument('<goal>', 'what the swarm should do'),
    ),
  )
    .option('--task <text...>', 'explicit tasks instead of the goal once per worker')
    .option('--json', 'print the result as JSON')
    .action((goal: string, options: ModelChoiceOptions & { task?: string[]; json?: boolean }) =>
      withAgent(ctx, setExit, 'pincer swarm run', options, async (agent) => {
        const { settings, backend } = await openSwarm(agent.claw.swarm, agent.secrets);
        try {
          const coordinator = new SwarmCoordinator(
            settings,
            backend,
            agentLeader(agent),
            agent.telemetry,
          );
          const result = await coordinator.run({ goal, tasks: options.task });
          if (options.json) ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
          else {
            for (const report of result.reports) {
              ctx.stderr.write(
                `[${report.worker || '-'}] ${report.status} (${report.tokens} tokens, $${report.costUsd.toFixed(4)})\n`,
              );
            }
            ctx.stdout.write(`${result.answer}\n`);
            if (result.reason)
              ctx.stderr.write(`pincer swarm run: ${result.outcome}: ${result.reason}\n`);
          }
          return result.outcome === 'completed' ? ExitCode.ok : ExitCode.failed;
        } finally {
          await backend.close();
        }
      }),
    );

  addModelChoiceOptions(
    addModelOptions(
      swarm
        .command('join')
        .description(
          "serve swarm tasks as a worker (one at a time, under this agent's policy) until Ctrl+C",
        )
        .option(
          '--id <name>',
          "this member's id (letters, digits, - and _)",
          `pincer-${process.pid}`,
        )
        .option(
          '--as <identity_ref>',
          "hierarchical swarms: which of the swarm's agents this member is (a sub-leader or a worker)",
        ),
    ),
  ).action((options: ModelChoiceOptions & { id: string; as?: string }) =>
    withAgent(ctx, setExit, 'pincer swarm join', options, async (agent) => {
      const { settings, backend } = await openSwarm(agent.claw.swarm, agent.secrets);
      let place: ReturnType<typeof memberPlace>;
      try {
        place = memberPlace(settings, options.as);
      } catch (error) {
        await backend.close();
        throw error;
      }
      const serving = await backend.serve(
        {
          id: options.id,
          swarm: place.queue,
          identity: agent.claw.identity.name,
          role: place.role,
        },
        place.branch === undefined
          ? agentWorker(agent)
          : subLeaderWorker(settings, backend, place.branch, agentLeader(agent), agent.telemetry),
      );
      ctx.stderr.write(
        `joined swarm ${settings.name} as ${options.id} (${place.role}); Ctrl+C leaves\n`,
      );
      await stopSignal(['SIGINT']);
      await serving.stop();
      await backend.close();
      return ExitCode.ok;
    }),
  );

  swarm
    .command('status')
    .description('the members discovery sees and the dead letters of the swarm')
    .option('--manifest <file>', 'the claw.yaml to read the swarm from')
    .option('--json', 'print JSON')
    .action(async (options: { manifest?: string; json?: boolean }) => {
      const secrets = createSecretStore({ dataDir: ctx.dataDir });
      try {
        const { claw } = await loadActiveClaw(
          { dataDir: ctx.dataDir, resourcesDir: resourcesDirOf(ctx.appDir) },
          options.manifest,
        );
        const { settings, backend } = await openSwarm(claw.swarm, secrets);
        try {
          // A hierarchy's branches are queues of their own: their members and dead letters count.
          const queues = swarmQueues(settings.name, settings.tree?.branches.length ?? 0);
          const peers: Peer[] = [];
          const dead: DeadLetter[] = [];
          for (const queue of queues) {
            peers.push(...(await backend.discover(queue)));
            dead.push(...(await backend.deadLetters(queue)));
          }
          if (options.json) {
            ctx.stdout.write(
              `${JSON.stringify({ swarm: settings.name, backend: backend.kind, peers, deadLetters: dead }, null, 2)}\n`,
            );
          } else {
            ctx.stdout.write(
              `swarm ${settings.name} (${settings.topology}, ${backend.kind}): ${peers.length} member(s), ${dead.length} dead letter(s)\n`,
            );
            for (const peer of peers)
              ctx.stdout.write(`  ${peer.id}  ${peer.role}  ${peer.status}  seen ${peer.seenAt}\n`);
          }
          setExit(ExitCode.ok);
        } finally {
          await backend.close();
        }
      } catch (error) {
        ctx.stderr.write(`pincer swarm status: ${(error as Error).message}\n`);
        setExit(
          error instanceof SwarmError && error.code === 'unsupported'
            ? ExitCode.usage
            : ExitCode.failed,
        );
      } finally {
        secrets.close();
      }
    });
}

async function withAgent(
  ctx: CliContext,
  setExit: SetExitCode,
  command: string,
  options: ModelChoiceOptions,
  work: (agent: Awaited<ReturnType<typeof openCliAgent>>['agent']) => Promise<number>,
): Promise<void> {
  const problem = checkModelChoice(options);
  if (problem) {
    ctx.stderr.write(`${command}: ${problem}\n`);
    return setExit(ExitCode.usage);
  }
  let close: () => Promise<void> = async () => {};
  try {
    const opened = await openCliAgent(ctx, options);
    close = opened.close;
    setExit(await work(opened.agent));
  } catch (error) {
    ctx.stderr.write(`${command}: ${(error as Error).message}\n`);
    setExit(
      error instanceof SwarmError && error.code === 'unsupported'
        ? ExitCode.usage
        : ExitCode.failed,
    );
  } finally {
    await close();
  }
}
