// The cartesian dist ships no types; this is the small part of Plotly's API the charts use.
declare module 'plotly.js-cartesian-dist-min' {
  export type Datum = number | string | null;
  export interface Trace {
    type?: 'scatter' | 'bar' | 'histogram';
    mode?: string;
    name?: string;
    x?: Datum[];
    y?: Datum[];
    yaxis?: string;
    text?: string[];
    /** A value per point for templates (%{customdata}). */
    customdata?: Datum[];
    /** What mode 'text' writes beside each point, and where. */
    texttemplate?: string;
    textposition?: string;
    textfont?: Record<string, unknown>;
    hovertemplate?: string;
    marker?: Record<string, unknown>;
    line?: Record<string, unknown>;
    nbinsx?: number;
    opacity?: number;
    showlegend?: boolean;
  }
  export type Layout = Record<string, unknown>;
  export type Config = Record<string, unknown>;
  const Plotly: {
    react(el: HTMLElement, data: Trace[], layout: Layout, config?: Config): Promise<unknown>;
    purge(el: HTMLElement): void;
  };
  export default Plotly;
}
