/**
 * Generated text: varied prose built once from a seeded grammar, so no request loops unless a
 * fault asks for it, plus the fixed passage a looping request repeats. Each piece is one token
 * of the simulator's tokenizer, kept with its JSON-escaped form for the chunk templates.
 */
import { rng } from '#shared/random';
import { pieces } from './tokenizer';

export { rng };

const SUBJECTS = [
  'The old harbour',
  'A quiet engineer',
  'The river delta',
  'Every careful reader',
  'The mountain village',
  'Our research team',
  'The northern railway',
  'A patient gardener',
  'The city council',
  'The visiting scholar',
  'A small bakery',
  'The evening tide',
  'The library archive',
  'A travelling musician',
  'The wind farm',
  'The market square',
  'A young cartographer',
  'The lighthouse keeper',
  'The orchestra',
  'A curious child',
  'The coastal forest',
  'The weather station',
  'An experienced pilot',
  'The glass workshop',
];
const VERBS = [
  'gradually reshaped',
  'carefully documented',
  'quietly transformed',
  'openly questioned',
  'patiently rebuilt',
  'briefly examined',
  'thoroughly explored',
  'unexpectedly revealed',
  'steadily improved',
  'cheerfully described',
  'cautiously measured',
  'boldly reimagined',
  'slowly uncovered',
  'proudly presented',
  'eagerly compared',
  'silently observed',
  'generously supported',
  'firmly defended',
];
const OBJECTS = [
  'the rhythm of daily life',
  'a forgotten trade route',
  'the balance between speed and care',
  'several competing theories',
  'the history of the valley',
  'an unusual pattern in the data',
  'the cost of long winters',
  'a network of narrow streets',
  'the habits of migrating birds',
  'the promise of cleaner energy',
  'a collection of handwritten letters',
  'the shape of the coastline',
  'the limits of the old method',
  'a surprising number of small details',
  'the meaning of shared work',
  'the sound of distant bells',
  'a plan for the coming decade',
  'the quality of the morning light',
  'an argument about fair prices',
  'the stories told by elders',
];
const TAILS = [
  'before the first snow arrived',
  'while visitors watched closely',
  'over the course of many seasons',
  'with remarkable precision',
  'despite a lack of funding',
  'in the months after the flood',
  'as the evidence slowly accumulated',
  'without much public attention',
  'under a sky full of heavy clouds',
  'for reasons nobody expected',
  'after a long and lively debate',
  'during the busiest week of the year',
  'in a way that felt entirely new',
  'long after the festival ended',
  'while the town was still asleep',
  'with help from distant friends',
];
const LINKS = [
  'Meanwhile,',
  'Later,',
  'In contrast,',
  'As a result,',
  'Even so,',
  'At the same time,',
  'Afterwards,',
  'For a while,',
  'Eventually,',
  'Surprisingly,',
];

function sentence(r: () => number): string {
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  let s = `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)} ${pick(TAILS)}.`;
  if (r() < 0.35) s = `${pick(LINKS)} ${s[0].toLowerCase()}${s.slice(1)}`;
  if (r() < 0.15) s += ` It was ${Math.floor(r() * 900 + 100)} days before anyone noticed.`;
  return s;
}

export interface Corpus {
  /** Token strings. */
  text: string[];
  /** The same, JSON-escaped (without quotes) for the chunk templates. */
  json: string[];
}

function toCorpus(text: string): Corpus {
  const t = pieces(text);
  return { text: t, json: t.map((p) => JSON.stringify(p).slice(1, -1)) };
}

/** About `tokens` tokens of paragraphs of varied prose. */
export function buildProse(seed: number, tokens = 160_000): Corpus {
  const r = rng(seed ^ 0x5eed);
  const parts: string[] = [];
  let approx = 0;
  while (approx < tokens) {
    const n = 3 + Math.floor(r() * 5);
    const para: string[] = [];
    for (let i = 0; i < n; i++) para.push(sentence(r));
    const p = para.join(' ');
    parts.push(p);
    approx += p.length / 3.6;
  }
  return toCorpus(parts.join('\n\n') + '\n\n');
}

/** What a looping request repeats, again and again. */
export const LOOP_PASSAGE = toCorpus(
  'And so the story returns to the same place, the same words, the same small room where it began. ',
);
