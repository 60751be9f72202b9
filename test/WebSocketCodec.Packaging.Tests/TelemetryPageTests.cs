using System.Text.RegularExpressions;
using WebSocketCodec.Testing;

namespace WebSocketCodec.Packaging.Tests;

/// <summary>
/// The telemetry guide names every instrument the packages create (a metric added to the code without its line in
/// docs/guides/telemetry.md fails here), and names none that the code no longer has.
/// </summary>
public sealed partial class TelemetryPageTests
{
    [Fact]
    public void TheTelemetryPageListsEveryInstrumentOfTheCode()
    {
        string[] sources = Directory.EnumerateFiles(Path.Combine(DocBlocks.Root, "src"), "*.cs", SearchOption.AllDirectories)
            .Where(path => !path.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal))
            .ToArray();
        var inCode = sources.SelectMany(path => Quoted().Matches(File.ReadAllText(path)).Select(m => m.Groups[1].Value)).ToHashSet();
        var onPage = Backquoted().Matches(File.ReadAllText(Path.Combine(DocBlocks.Root, "docs", "guides", "telemetry.md")))
            .Select(m => m.Groups[1].Value).ToHashSet();

        Assert.True(inCode.Count >= 10, "the instruments' names are found in src/ as \"websocketcodec.*\" literals");
        Assert.Empty(inCode.Except(onPage).Order());
        Assert.Empty(onPage.Except(inCode).Order());
    }

    [GeneratedRegex("\"(websocketcodec\\.[a-z0-9_.]+)\"")]
    private static partial Regex Quoted();

    [GeneratedRegex("`(websocketcodec\\.[a-z0-9_.]+)`")]
    private static partial Regex Backquoted();
}
