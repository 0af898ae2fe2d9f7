// The app's own code that docs/ai-sdk.md's route calls (`publish`), as a user's app has it.
export async function publish(title: string): Promise<{ url: string }> {
  return { url: `https://posters.example/${encodeURIComponent(title)}` };
}
