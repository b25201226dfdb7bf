/** A refusal of what an operator typed into a console form; its message is shown on the page. */
export class OperatorInputError extends Error {
  override name = 'OperatorInputError';
}
