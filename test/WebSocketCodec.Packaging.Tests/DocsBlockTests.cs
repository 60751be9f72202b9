using System.Text.RegularExpressions;
using WebSocketCodec.Testing;

namespace WebSocketCodec.Packaging.Tests;

/// <summary>
/// The docs' blocks are well formed (docs/AUTHORING.md): every C# block is marked, so <see cref="DocsConsumerTests"/>
/// compiles it or its marker says why not; names are unique; every output block is checked by a test that produces
/// that output.
/// </summary>
public sealed partial class DocsBlockTests
{
    [Fact]
    public void EveryCSharpBlockIsMarked() =>
        Assert.True(DocBlocks.Unmarked.Count == 0,
            "C# blocks with no <!-- program|snippet|file|not-compiled: ... --> line before them (docs/AUTHORING.md):\n"
            + string.Join('\n', DocBlocks.Unmarked));

    [Fact]
    public void TheDocsHoldCompiledBlocksOnEveryKindOfPage()
    {
        // The consumer test compiles these; a parser that found none would make it pass vacuously.
        Assert.Contains(DocBlocks.All, b => b.Kind == DocBlockKind.Program && b.Page == "README.md");
        Assert.Contains(DocBlocks.All, b => b.Kind is DocBlockKind.Program or DocBlockKind.Snippet && b.Page.StartsWith("docs/guides/", StringComparison.Ordinal));
        Assert.Contains(DocBlocks.All, b => b.Kind is DocBlockKind.Program or DocBlockKind.Snippet && b.Page.StartsWith("src/", StringComparison.Ordinal));
    }

    [Fact]
    public void NamesAreUniqueAndMarkersComplete()
    {
        var problems = new List<string>();
        foreach (IGrouping<string, DocBlock> same in DocBlocks.All.Where(b => b.Kind != DocBlockKind.NotCompiled).GroupBy(b => b.Name).Where(g => g.Count() > 1))
            problems.Add($"'{same.Key}' names blocks at " + string.Join(", ", same.Select(b => b.Where)));
        foreach (DocBlock block in DocBlocks.All)
        {
            if (block.Kind != DocBlockKind.NotCompiled && !Name().IsMatch(block.Name))
                problems.Add($"{block.Where}: name '{block.Name}' (lowercase, digits and dashes)");
            if (block.Kind == DocBlockKind.NotCompiled && block.Attribute("reason").Length < 10)
                problems.Add($"{block.Where}: not-compiled says why");
            if (block.Kind == DocBlockKind.Program && (block.Attribute("packages").Length == 0 || block.Attribute("sdk") is not ("web" or "console")))
                problems.Add($"{block.Where}: a program gives sdk=web|console and packages=...");
        }

        Assert.True(problems.Count == 0, string.Join('\n', problems));
    }

    [Fact]
    public void EveryOutputBlockIsCheckedByATest()
    {
        // A test checks an output block by calling DocBlocks.OutputMismatch("NAME", ...) on what a program printed.
        string tests = Path.Combine(DocBlocks.Root, "test");
        string sources = string.Concat(Directory.EnumerateFiles(tests, "*.cs", SearchOption.AllDirectories)
            .Where(path => !path.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal)
                && !path.Contains($"{Path.DirectorySeparatorChar}bin{Path.DirectorySeparatorChar}", StringComparison.Ordinal))
            .Select(File.ReadAllText));
        string[] unchecked_ = DocBlocks.All
            .Where(b => b.Kind == DocBlockKind.Output && !sources.Contains($"OutputMismatch(\"{b.Name}\"", StringComparison.Ordinal))
            .Select(b => $"{b.Where} ({b.Name})")
            .ToArray();
        Assert.True(unchecked_.Length == 0, "output blocks no test checks:\n" + string.Join('\n', unchecked_));
    }

    [GeneratedRegex("^[a-z0-9]+(-[a-z0-9]+)*$")]
    private static partial Regex Name();
}
