import type { JsonObject, PageTool } from '../../../driver/webmcp.ts';
import { fillInput, propertiesOf, type Known } from './inputs.ts';
import { keyWords } from './results.ts';

// Choosing the page's tool for a step from its name, description and input schema. A tool is a
// candidate only when its input can be filled; the best by name, then description, then how much of
// its input we fill, wins. Which tools may be called at all is the payment guard's (tool-rule.ts).

export type Purpose = 'search' | 'hold' | 'guest';

const PURPOSES: Record<Purpose, { name: RegExp; not: RegExp }> = {
  search: {
    name: /search|find|availab|check|look ?up|list|browse|query|slots|times|tables|rooms|flights|fares|tickets|tours|events|sessions/,
    not: /hold|book|reserve|select|choose|pick|guest|contact|detail|cancel|order|pay|confirm/,
  },
  hold: {
    name: /hold|reserve|select|choose|pick|book|lock|claim|add to (cart|basket)|start booking/,
    not: /search|find|cancel|guest|contact|detail|availab|list/,
  },
  guest: {
    name: /guest|contact|details|traveller|traveler|passenger|customer|attendee|personal|lead|who/,
    not: /search|find|cancel|availab/,
  },
};

/** An input that takes the chosen option's id, when none has the key the option list used. */
const OPTION_INPUT = /(^| )(id|slot|offer|option|room|fare|flight|ticket|key|choice|selection|session|time slot|time)( |$)/;

export interface Chosen {
  tool: PageTool;
  input: JsonObject;
}

function score(tool: PageTool, purpose: Purpose): number {
  const name = keyWords(tool.name);
  const description = tool.description.slice(0, 500).toLowerCase();
  const p = PURPOSES[purpose];
  let s = 0;
  if (p.name.test(name)) s += 3;
  if (p.not.test(name)) s -= 5;
  if (p.name.test(description)) s += 1;
  if (purpose === 'search' && tool.annotations?.readOnly) s += 1;
  return s;
}

/** The tool for this step and its input, or null when the page has none that fits. */
export function chooseTool(tools: PageTool[], purpose: Purpose, known: Known): Chosen | null {
  let best: (Chosen & { score: number }) | null = null;
  for (const tool of tools) {
    const s = score(tool, purpose);
    if (s <= 0) continue;
    let k = known;
    if (purpose === 'hold' && known.offer) {
      // The option's id goes under its own key, or else under the one input that reads as an option.
      const props = propertiesOf(tool);
      if (!props.some((p) => p.key === known.offer!.idKey)) {
        // The input that best reads as this option: one sharing a word with the list's key
        // (`slot` for `slot_id`), then one naming an option, then a required one.
        const listWords = new Set(keyWords(known.offer.idKey).split(' ').filter((w) => w !== 'id'));
        const rank = (key: string, required: boolean) => (keyWords(key).split(' ').some((w) => listWords.has(w)) ? 4 : 0)
          + (/(^| )(slot|offer|option|room|fare|flight|ticket|choice|selection|time)( |$)/.test(keyWords(key)) ? 2 : 0) + (required ? 1 : 0);
        const slot = props.filter((p) => OPTION_INPUT.test(keyWords(p.key))).sort((a, b) => rank(b.key, b.required) - rank(a.key, a.required))[0];
        if (!slot) continue;
        k = { ...known, offer: { idKey: slot.key, id: known.offer.id } };
      }
    }
    const filled = fillInput(tool, k);
    if (!filled) continue;
    if (purpose === 'hold' && !Object.values(filled.input).includes(k.offer?.id ?? NaN)) continue;
    if (purpose === 'guest' && !['email', 'name'].some((w) => Object.keys(filled.input).some((key) => keyWords(key).includes(w)))) continue;
    if (purpose === 'search' && filled.filled === 0) continue;
    const total = s * 10 + filled.filled;
    if (!best || total > best.score) best = { tool, input: filled.input, score: total };
  }
  return best ? { tool: best.tool, input: best.input } : null;
}
