/** Why an answer is refused: the field to fix (`model.apiKey`, `slack.botToken`, `owners`) and what is wrong. */
export interface SetupRefusal {
  field: string;
  message: string;
}
