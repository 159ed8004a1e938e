/** Whether received card JSON carries signatures, told without loading the verifier. */
export function carriesSignatures(json: Readonly<Record<string, unknown>>): boolean {
  const sigs = json.signatures;
  // Anything but an absent, null or empty list counts as signed: a malformed
  // `signatures` member must fail verification, not pass as unsigned.
  return sigs !== undefined && sigs !== null && !(Array.isArray(sigs) && sigs.length === 0);
}
