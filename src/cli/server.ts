import type { Command } from 'commander';
import { type Config, loadPort } from '../config/index.js';
import { runMode } from '../platform/assets.js';
import { appVersion } from '../platform/version.js';
import { addVariableOptions, CliError, configFrom, firstLine, SERVE_VARIABLES } from './options.js';

export interface CliActions {
  serve(config: Config): Promise<void>;
}

/** `serve` (the default): the API, widget and admin UI. */
export function serveCommand(program: Command, env: NodeJS.ProcessEnv, actions: CliActions): void {
  addVariableOptions(
    program
      .command('serve', { isDefault: true })
      .description('serve the API, widget and admin UI (the default command)'),
    SERVE_VARIABLES,
  ).action(async (_opts, cmd: Command) => actions.serve(configFrom(cmd, SERVE_VARIABLES, env)));
}

/** `healthcheck`: exit 0 when the local server answers GET /api/health with 200. */
export function healthcheckCommand(program: Command, env: NodeJS.ProcessEnv): void {
  const PORT_VARIABLES = SERVE_VARIABLES.filter(([v]) => v === 'PORT');
  addVariableOptions(
    program
      .command('healthcheck')
      .description(
        'exit 0 when the server on this machine answers GET /api/health with 200 (for container health checks)',
      ),
    PORT_VARIABLES,
  ).action(async (_opts, cmd: Command) => {
    // only PORT matters here: DATA_DIR is not touched
    const opts = cmd.opts<{ port?: string }>();
    const port = loadPort(opts.port !== undefined ? { PORT: opts.port } : env);
    if (port === 0) throw new CliError('--port: give the port the server listens on (PORT=0 picks one at random)');
    let status: number;
    try {
      status = (await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(4000) })).status;
    } catch (err) {
      throw new CliError(`health check of port ${port} failed: ${firstLine(err)}`);
    }
    if (status !== 200) throw new CliError(`health check of port ${port}: status ${status}`);
    process.stdout.write('ok\n');
  });
}

/** `version`: the version and the runtime. */
export function versionCommand(program: Command): void {
  program
    .command('version')
    .description('print the version')
    .action(() => {
      process.stdout.write(
        `chat-agent ${appVersion()} (node ${process.version}, ${process.platform}-${process.arch}, ${runMode()})\n`,
      );
    });
}
