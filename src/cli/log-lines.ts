import type { AccessEntry } from '../surfaces/shared/access-log.ts';

/** `--log-format`: lines for a person, or JSON lines for a log pipeline. */
export type LogFormat = 'text' | 'json';

export interface LogLines {
  /** One line per request, on stdout. */
  access(entry: AccessEntry): void;
  /** The server's own messages: start-up and retention on stdout, internal errors on stderr. */
  message(level: 'info' | 'error', text: string): void;
  /** Whether lines are JSON (then no table is printed for a person). */
  readonly json: boolean;
}

export function logLines(format: LogFormat): LogLines {
  if (format === 'json') {
    return {
      access: (e) => process.stdout.write(`${JSON.stringify({ type: 'access', ...e })}\n`),
      message: (level, text) =>
        streamOf(level).write(
          `${JSON.stringify({ type: 'message', at: new Date().toISOString(), level, text })}\n`,
        ),
      json: true,
    };
  }
  return {
    access: (e) =>
      process.stdout.write(`${e.at} ${e.method} ${e.path} ${e.status} ${e.ms.toFixed(1)}ms ${e.caller}\n`),
    message: (level, text) => streamOf(level).write(`${text}\n`),
    json: false,
  };
}

function streamOf(level: 'info' | 'error'): NodeJS.WriteStream {
  return level === 'error' ? process.stderr : process.stdout;
}
