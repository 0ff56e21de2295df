/**
 * A value a person gave (a CLI flag, an app form's field) that cannot be used. Its message names
 * the flag and shows a good value; the CLI exits 2 with it, the app puts it at the field.
 */
export class InputError extends Error {}
