import { createHash } from 'node:crypto';

// The API reference page: the OpenAPI document rendered as one self-contained HTML page on the
// server. No script, no external asset (the machine may be offline); one inline style block,
// allowed by its hash in the Content-Security-Policy.

type Schema = Record<string, unknown>;
type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const escape = (value: unknown): string =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Escapes, then renders `code` spans and blank-line paragraphs: the only markup the document uses. */
function prose(text: unknown): string {
  return String(text ?? '')
    .split(/\n\n+/)
    .map((para) => `<p>${escape(para).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`)
    .join('');
}

const refName = (ref: string) => ref.split('/').pop()!;
const anchor = (name: string) => `schema-${name}`;

function typeOf(schema: Schema | undefined): string {
  if (!schema) return 'any';
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref);
    return `<a href="#${anchor(name)}">${escape(name)}</a>`;
  }
  if (schema.const !== undefined) return `<code>${escape(JSON.stringify(schema.const))}</code>`;
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => `<code>${escape(JSON.stringify(v))}</code>`).join(' | ');
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(union)) {
    if (union.every((s) => s.type === 'object' && s.properties)) return 'object (one of the forms below)';
    return union.map((s) => typeOf(s)).join(' or ');
  }
  if (schema.type === 'array') return `list of ${typeOf(schema.items as Schema | undefined)}`;
  if (schema.type === 'object' && !schema.properties && schema.additionalProperties) return 'object';
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : String(schema.type ?? 'any');
  return escape(schema.format ? `${type} (${String(schema.format)})` : type);
}

function constraints(schema: Schema): string {
  const parts: string[] = [];
  if (schema.default !== undefined) parts.push(`default <code>${escape(JSON.stringify(schema.default))}</code>`);
  const num = (v: unknown) => typeof v === 'number' && Math.abs(v) < 1e15;
  if (num(schema.minimum)) parts.push(`≥ ${String(schema.minimum)}`);
  if (num(schema.exclusiveMinimum)) parts.push(`> ${String(schema.exclusiveMinimum)}`);
  if (num(schema.maximum)) parts.push(`≤ ${String(schema.maximum)}`);
  if (schema.minLength === 1) parts.push('not empty');
  else if (typeof schema.minLength === 'number' && schema.minLength > 1) parts.push(`at least ${schema.minLength} characters`);
  if (typeof schema.maxLength === 'number') parts.push(`at most ${schema.maxLength} characters`);
  if (typeof schema.maxItems === 'number') parts.push(`at most ${schema.maxItems} items`);
  if (typeof schema.pattern === 'string' && schema.format === undefined) parts.push(`pattern <code>${escape(schema.pattern)}</code>`);
  return parts.join('; ');
}

interface Row {
  name: string;
  required: boolean;
  schema: Schema;
}

/** Properties of an object schema, nested inline objects flattened to dotted names. */
function rows(schema: Schema, prefix = '', depth = 0): Row[] {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const out: Row[] = [];
  for (const [key, prop] of Object.entries(props)) {
    const name = `${prefix}${key}`;
    out.push({ name, required: required.has(key), schema: prop });
    if (depth >= 3) continue;
    if (prop.type === 'object' && prop.properties) out.push(...rows(prop, `${name}.`, depth + 1));
    const items = prop.items as Schema | undefined;
    if (prop.type === 'array' && items?.type === 'object' && items.properties) out.push(...rows(items, `${name}[].`, depth + 1));
  }
  return out;
}

function propertyTable(schema: Schema): string {
  const list = rows(schema);
  if (list.length === 0) return '';
  const body = list
    .map((r) => {
      const type = r.schema.type === 'object' && r.schema.properties ? 'object' : typeOf(r.schema);
      const notes = [r.schema.description ? escape(r.schema.description) : '', constraints(r.schema)].filter(Boolean).join(' — ');
      return `<tr><td><code>${escape(r.name)}</code></td><td>${type}</td><td>${r.required ? 'yes' : ''}</td><td>${notes}</td></tr>`;
    })
    .join('');
  return `<table><thead><tr><th>field</th><th>type</th><th>required</th><th>notes</th></tr></thead><tbody>${body}</tbody></table>`;
}

function schemaSection(name: string, schema: Schema): string {
  let html = `<section id="${anchor(name)}"><h3>${escape(name)}</h3>${schema.description ? prose(schema.description) : ''}`;
  html += propertyTable(schema);
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  for (const [key, prop] of Object.entries(props)) {
    const variants = prop.oneOf as Schema[] | undefined;
    if (!Array.isArray(variants)) continue;
    html += `<p><code>${escape(key)}</code> is one of:</p><ul>`;
    for (const v of variants) {
      const vp = (v.properties ?? {}) as Record<string, Schema>;
      html += `<li>${Object.entries(vp)
        .map(([k, s]) => `<code>${escape(k)}</code>: ${typeOf(s)}`)
        .join(', ')}</li>`;
    }
    html += '</ul>';
  }
  if (schema.additionalProperties === false) html += '<p class="note">No other fields are accepted.</p>';
  return `${html}</section>`;
}

function operationSection(path: string, method: string, op: Doc): string {
  const id = `op-${String(op.operationId)}`;
  let html = `<section id="${escape(id)}" class="op"><h3><span class="method ${escape(method)}">${escape(method.toUpperCase())}</span> <code>/api/v1${escape(path)}</code></h3>`;
  html += `<p><strong>${escape(op.summary)}</strong></p>${prose(op.description)}`;
  html += `<p class="auth">${Array.isArray(op.security) && op.security.length === 0 ? 'Public: no API key.' : 'Requires <code>Authorization: Bearer &lt;API_KEY&gt;</code>.'}</p>`;
  const params = (op.parameters ?? []) as Doc[];
  if (params.length) {
    html += '<h4>Parameters</h4><table><thead><tr><th>name</th><th>in</th><th>type</th><th>notes</th></tr></thead><tbody>';
    for (const p of params) html += `<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}</td><td>${typeOf(p.schema)}</td><td>${escape(p.description)}</td></tr>`;
    html += '</tbody></table>';
  }
  const body = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
  if (body) html += `<h4>Body</h4><p><code>Content-Type: application/json</code>, at most 1 MiB: ${typeOf(body)}</p>`;
  html += '<h4>Responses</h4><table><thead><tr><th>status</th><th>body</th><th>when</th></tr></thead><tbody>';
  for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Doc>)) {
    const content = response.content as Record<string, Doc> | undefined;
    const json = content?.['application/json']?.schema as Schema | undefined;
    // An empty schema (this document's own reply) says no more than its content type.
    const what = json && Object.keys(json).length > 0 ? typeOf(json) : content ? escape(Object.keys(content).join(', ')) : '(none)';
    const headers = response.headers ? `<p>Headers: ${Object.keys(response.headers as object).map((h) => `<code>${escape(h)}</code>`).join(', ')}</p>` : '';
    html += `<tr><td>${escape(status)}</td><td>${what}</td><td>${prose(response.description)}${headers}</td></tr>`;
  }
  html += '</tbody></table>';
  return `${html}</section>`;
}

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:70rem;padding:1rem 2rem;color:#1d1d1f}
h1{margin-bottom:.2rem}h2{border-bottom:2px solid #ddd;margin-top:2.5rem}h3{margin-top:2rem}
code{font:13px ui-monospace,monospace;background:#f3f3f5;padding:0 .25rem;border-radius:3px}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f7f7f9}td p{margin:.2rem 0}.method{font-weight:700;padding:.1rem .4rem;border-radius:3px;color:#fff}
.get{background:#1a7f37}.post{background:#0550ae}.delete{background:#cf222e}.note,.auth{color:#555}
nav ul{columns:2}
`;

export const REFERENCE_STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`;

export function renderReferencePage(doc: Doc): string {
  const ops: string[] = [];
  const toc = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Doc>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = String((op.tags as string[] | undefined)?.[0] ?? 'Other');
      toc.set(tag, [...(toc.get(tag) ?? []), `<li><a href="#op-${escape(op.operationId)}">${escape(method.toUpperCase())} ${escape(path)}</a>: ${escape(op.summary)}</li>`]);
      ops.push(operationSection(path, method, op));
    }
  }
  const schemes = doc.components?.securitySchemes ?? {};
  const schemas = Object.entries((doc.components?.schemas ?? {}) as Record<string, Schema>).map(([name, s]) => schemaSection(name, s));
  const errors = Object.entries((doc['x-error-codes'] ?? {}) as Record<string, { status: number; when: string }>)
    .map(([code, e]) => `<tr><td>${e.status}</td><td><code>${escape(code)}</code></td><td>${prose(e.when)}</td></tr>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(doc.info.title)} — reference</title><style>${STYLE}</style></head>
<body>
<h1>${escape(doc.info.title)}</h1><p>Version ${escape(doc.info.version)} · base URL <code>${escape(doc.servers?.[0]?.url ?? '/api/v1')}</code> · <a href="openapi.json">OpenAPI document</a></p>
${prose(doc.info.description)}
<h2>Authentication</h2>
${Object.values(schemes as Record<string, Doc>).map((s) => prose(s.description)).join('')}
<h2>Endpoints</h2>
<nav>${[...toc].map(([tag, items]) => `<h3>${escape(tag)}</h3><ul>${items.join('')}</ul>`).join('')}</nav>
${ops.join('\n')}
<h2>Error codes</h2>
<p>Every error body is <code>{"error": {"code", "message", "details?"}}</code>. Branch on <code>code</code>; <code>message</code> is for people.</p>
<table><thead><tr><th>status</th><th>code</th><th>when</th></tr></thead><tbody>${errors}</tbody></table>
<h2>Schemas</h2>
${schemas.join('\n')}
</body></html>
`;
}
