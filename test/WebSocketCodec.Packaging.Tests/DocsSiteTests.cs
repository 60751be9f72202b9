using WebSocketCodec.Packaging.Tests.Infrastructure;
using WebSocketCodec.Testing;
using Xunit.Abstractions;

namespace WebSocketCodec.Packaging.Tests;

/// <summary>
/// The docs site builds as the README says (<c>dotnet tool restore</c>, then docfx in docs/ with warnings as errors: a
/// broken link, a missing cross-reference or a page missing from a table of contents fails it), and holds a page for
/// every guide its table of contents lists and the API reference of every package.
/// </summary>
public sealed class DocsSiteTests(ITestOutputHelper output)
{
    private static readonly TimeSpan Bound = TimeSpan.FromMinutes(8);

    [SkippableFact]
    public async Task TheSiteBuildsWithNoWarning()
    {
        (int restored, string restoreOutput) = await DotnetProcess.RunAsync(DocBlocks.Root, ["tool", "restore"], Bound);
        string? unreachable = restored == 0 ? null : InstallOutcome.NuGetUnreachableLine(restoreOutput);
        Skip.If(unreachable is not null, "the configured NuGet feed is unreachable: " + unreachable);
        Assert.True(restored == 0, "dotnet tool restore:\n" + restoreOutput);

        string docs = Path.Combine(DocBlocks.Root, "docs");
        (int exitCode, string built) = await DotnetProcess.RunAsync(docs, ["docfx", "docfx.json", "--warningsAsErrors"], Bound);
        output.WriteLine(built);
        Assert.True(exitCode == 0, "docfx (docs/docfx.json, warnings as errors):\n" + built);

        string site = Path.Combine(docs, "_site");
        string[] guides = File.ReadAllLines(Path.Combine(docs, "guides", "toc.yml"))
            .Where(line => line.TrimStart().StartsWith("href:", StringComparison.Ordinal))
            .Select(line => line.Split(':', 2)[1].Trim())
            .ToArray();
        Assert.True(guides.Length >= 10, "docs/guides/toc.yml lists the guides");
        foreach (string guide in guides)
            Assert.True(File.Exists(Path.Combine(site, "guides", Path.ChangeExtension(guide, ".html"))), guide + " was built");
        foreach (string ns in new[] { "WebSocketCodec", "WebSocketCodec.Pipelines", "WebSocketCodec.AspNetCore", "WebSocketCodec.Lean", "WebSocketCodec.Akka", "WebSocketCodec.Akka.Cluster" })
            Assert.True(File.Exists(Path.Combine(site, "api", ns + ".html")), "the API reference of namespace " + ns);
    }
}
