// Functions exempt from the constant-time check, each with the reason it may be variable-time.
// Keep this list short: an entry says the function handles only public data (signature
// verification, public-key decoding). `func` is the name the checker reports (export name, else
// the `name` section's name, else `func[N]`). The checker prints the whole list with every report.
export const varTime: { module: string; func: string; reason: string }[] = [];
