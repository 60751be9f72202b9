namespace WebSocketCodec.Packaging.Tests.Infrastructure;

/// <summary>
/// A fenced code block of README.md between <c>&lt;!-- consumer-test: NAME ... --&gt;</c> and
/// <c>&lt;!-- /consumer-test: NAME --&gt;</c>, taken exactly as printed (the fence lines dropped).
/// </summary>
internal static class ReadmeSnippet
{
    public static string Read(string name)
    {
        string[] lines = File.ReadAllLines(Path.Combine(Repository.Root, "README.md"));
        int start = Array.FindIndex(lines, l => l.StartsWith($"<!-- consumer-test: {name} ", StringComparison.Ordinal)
            || l.StartsWith($"<!-- consumer-test: {name}-->", StringComparison.Ordinal));
        int end = Array.FindIndex(lines, l => l.StartsWith($"<!-- /consumer-test: {name} ", StringComparison.Ordinal));
        if (start < 0 || end < start)
            throw new InvalidOperationException($"README.md has no '<!-- consumer-test: {name} -->' ... '<!-- /consumer-test: {name} -->' block.");

        string[] block = lines[(start + 1)..end];
        if (block.Length < 2 || !block[0].StartsWith("```", StringComparison.Ordinal) || block[^1] != "```")
            throw new InvalidOperationException($"README.md's consumer-test block '{name}' must hold exactly one fenced code block.");
        return string.Join('\n', block[1..^1]) + "\n";
    }
}
