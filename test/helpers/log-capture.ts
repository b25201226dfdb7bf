/** A pino destination that keeps every line, for tests that read what the service logged. */
export interface LogCapture {
  write(line: string): void;
  /** Everything logged so far, as raw text (one JSON object per line). */
  text(): string;
  lines(): Array<Record<string, unknown>>;
}

export function captureLogs(): LogCapture {
  const chunks: string[] = [];
  return {
    write(line: string) {
      chunks.push(line);
    },
    text() {
      return chunks.join('');
    },
    lines() {
      return chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
}
