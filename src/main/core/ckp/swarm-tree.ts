/**
 * The tree a hierarchical swarm's agents form. CKP §5.9 draws Root → sub-leaders → workers but
 * gives an agent only a free-form `role`, so Pincer reads the roles `leader` (the root),
 * `sub-leader` (the middle tier) and `worker` (the leaves), and its `x-pincer.reports_to`
 * extension names each worker's sub-leader. Depth 2: the root, its sub-leaders, their workers.
 */

export interface SwarmAgentEntry {
  identity_ref: string;
  role: string;
  count?: number;
}

export interface SwarmBranch {
  /** The sub-leader's identity_ref. */
  identity: string;
  /** Its workers, in manifest order, with their counts. */
  workers: Array<{ identity: string; count: number }>;
}

export interface SwarmTree {
  root: string;
  branches: SwarmBranch[];
}

/** A reason the roles do not form a tree, at a path relative to the swarm's spec. */
export interface TreeProblem {
  path: Array<string | number>;
  message: string;
}

export const TREE_ROLES = ['leader', 'sub-leader', 'worker'] as const;

/** The tree, or every reason there is none (each names the agent or field at fault). */
export function swarmTree(
  agents: readonly SwarmAgentEntry[],
  reportsTo: Readonly<Record<string, string>> = {},
): { tree?: SwarmTree; problems: TreeProblem[] } {
  const problems: TreeProblem[] = [];
  const problem = (path: TreeProblem['path'], message: string) => problems.push({ path, message });
  const roots: number[] = [];
  const branches: SwarmBranch[] = [];
  const workerIds = new Set<string>();
  const seen = new Set<string>();

  agents.forEach((agent, i) => {
    const count = agent.count ?? 1;
    if (agent.role === 'leader' || agent.role === 'sub-leader') {
      const what = agent.role === 'leader' ? 'the root (role "leader")' : 'a sub-leader';
      if (count !== 1)
        problem(['agents', i, 'count'], `${what} has count 1 in a hierarchical swarm`);
      if (seen.has(agent.identity_ref))
        problem(['agents', i, 'identity_ref'], `"${agent.identity_ref}" leads twice`);
      seen.add(agent.identity_ref);
      if (agent.role === 'leader') roots.push(i);
      else branches.push({ identity: agent.identity_ref, workers: [] });
    } else if (agent.role === 'worker') {
      workerIds.add(agent.identity_ref);
    } else {
      problem(
        ['agents', i, 'role'],
        `role "${agent.role}" has no place in a hierarchical swarm (use ${TREE_ROLES.join(', ')})`,
      );
    }
  });

  if (roots.length !== 1)
    problem(
      ['agents'],
      `a hierarchical swarm has one root: one agent with role "leader" (found ${roots.length})`,
    );
  if (branches.length === 0)
    problem(['agents'], 'a hierarchical swarm needs at least one agent with role "sub-leader"');

  agents.forEach((agent, i) => {
    if (agent.role !== 'worker') return;
    const parent = reportsTo[agent.identity_ref];
    const branch = branches.find((b) => b.identity === parent);
    if (parent === undefined)
      problem(
        ['agents', i, 'identity_ref'],
        `worker "${agent.identity_ref}" reports to no sub-leader (add it to x-pincer.reports_to)`,
      );
    else if (!branch)
      problem(
        ['x-pincer', 'reports_to', agent.identity_ref],
        `worker "${agent.identity_ref}" reports to "${parent}", which is not a sub-leader of this swarm`,
      );
    else branch.workers.push({ identity: agent.identity_ref, count: agent.count ?? 1 });
  });
  for (const key of Object.keys(reportsTo)) {
    if (!workerIds.has(key))
      problem(['x-pincer', 'reports_to', key], `"${key}" is not a worker of this swarm`);
  }
  branches.forEach((branch) => {
    if (branch.workers.length === 0) {
      const at = agents.findIndex((a) => a.identity_ref === branch.identity);
      problem(
        ['agents', at, 'identity_ref'],
        `sub-leader "${branch.identity}" has no workers (name them in x-pincer.reports_to)`,
      );
    }
  });

  const root = agents[roots[0] ?? -1];
  return problems.length === 0 && root
    ? { tree: { root: root.identity_ref, branches }, problems }
    : { problems };
}
