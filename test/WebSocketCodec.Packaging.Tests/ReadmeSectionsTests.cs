using System.Text.RegularExpressions;
using WebSocketCodec.Testing;

namespace WebSocketCodec.Packaging.Tests;

/// <summary>
/// The README was 1,844 lines until issue 43 moved its sections into the guides. Every section it had is listed here
/// with the page that holds it now and a term that page must still use, so no section is lost quietly when pages are
/// reworked.
/// </summary>
public sealed class ReadmeSectionsTests
{
    public static TheoryData<string, string, string> Sections => new()
    {
        // the README's heading (as of 9a10888) | the page that holds it now | a term that page uses
        { "Quick start", "docs/guides/getting-started.md", "samples/EchoServer" },
        { "A chat in the browser", "docs/guides/broadcast-and-groups.md", "samples/Chat" },
        { "A chat in the console", "docs/guides/clients.md", "samples/ChatClient" },
        { "A server in a few lines", "docs/guides/getting-started.md", "MapWebSocket" },
        { "Without Kestrel: the lean transport (Linux)", "docs/guides/lean-transport.md", "LeanWebSocketServer" },
        { "HTTP/2", "docs/guides/http2.md", "ListenHttp1AndH2c" },
        { "A client in a few lines", "docs/guides/getting-started.md", "ConnectMessagesAsync" },
        { "Reconnecting, proxies and client certificates", "docs/guides/clients.md", "ReconnectingWebSocket" },
        { "Scope", "docs/guides/architecture.md", "ProtocolViolation" },
        { "Compression (permessage-deflate)", "docs/guides/compression.md", "server_no_context_takeover" },
        { "Slow and stalled peers", "docs/guides/slow-and-hostile-peers.md", "OutboundHighWaterMark" },
        { "Broadcast (one message to many websockets)", "docs/guides/broadcast-and-groups.md", "WebSocketGroup" },
        { "Tested against", "docs/guides/reliability.md", "ClientWebSocket" },
        { "Safe defaults and limits", "docs/guides/limits-and-defaults.md", "MaxMessagePayloadLength" },
        { "Reliability", "docs/guides/reliability.md", "soak" },
        { "Hostile peers", "docs/guides/slow-and-hostile-peers.md", "hostile" },
        { "Fuzzing", "docs/guides/reliability.md", "AFL++" },
        { "Soak (100 million frames)", "docs/guides/reliability.md", "WebSocketCodec.Soak" },
        { "Many idle websockets (the scale tool)", "docs/guides/performance.md", "WebSocketCodec.Scale" },
        { "One message to many websockets (the broadcast benchmark)", "docs/guides/performance.md", "WebSocketCodec.Broadcast" },
        { "Using the core", "docs/guides/custom-host.md", "FrameDecoder" },
        { "A host of your own (the port)", "docs/guides/custom-host.md", "IWebSocketTransport" },
        { "SpanNetty", "docs/guides/spannetty.md", "WithSpanNetty" },
        { "Akka.Remote over websockets", "docs/guides/akka-remote.md", "HOCON" },
        { "Groups across a cluster (Akka.NET)", "docs/guides/broadcast-and-groups.md", "ChatGateway" },
        { "Performance", "docs/guides/performance.md", "rerun-published.sh" },
        { "Against Bun and the machine's limit", "docs/guides/performance.md", "c-epoll" },
        { "End to end, over sockets (the perf tool)", "docs/guides/performance.md", "WebSocketCodec.PerfTest" },
        { "SpanNetty over HTTP/2", "docs/guides/performance.md", "spannetty-h2" },
        { "permessage-deflate performance", "docs/guides/performance.md", "deflate" },
        { "Akka.Remote: RemotePingPong", "docs/guides/performance.md", "RemotePingPong" },
        { "Packages", "docs/guides/repository.md", "PublicAPI.Shipped.txt" },
        { "Layout", "docs/guides/repository.md", "src/WebSocketCodec.Lean" },
        { "License", "README.md", "Apache-2.0" },
    };

    [Theory]
    [MemberData(nameof(Sections))]
    public void EverySectionOfTheOldReadmeHasAPage(string section, string page, string term)
    {
        string path = Path.Combine(DocBlocks.Root, page);
        Assert.True(File.Exists(path), $"'{section}' was to be on {page}, which does not exist");
        Assert.True(File.ReadAllText(path).Contains(term, StringComparison.OrdinalIgnoreCase), $"'{section}': {page} no longer mentions '{term}'");
    }

    [Fact]
    public void TheReadmeStaysShortAndLinksEveryGuide()
    {
        string[] readme = File.ReadAllLines(Path.Combine(DocBlocks.Root, "README.md"));
        Assert.True(readme.Length <= 200, $"README.md has {readme.Length} lines; the guides hold the rest (at most 200)");
        string guides = File.ReadAllText(Path.Combine(DocBlocks.Root, "docs", "guides", "index.md"));
        foreach (string line in File.ReadAllLines(Path.Combine(DocBlocks.Root, "docs", "guides", "toc.yml")).Where(l => l.TrimStart().StartsWith("href:", StringComparison.Ordinal)))
        {
            string href = line.Split(':', 2)[1].Trim();
            if (href != "index.md")
                Assert.True(guides.Contains($"({href})", StringComparison.Ordinal), $"docs/guides/index.md links {href}");
        }
    }

    /// <summary>
    /// Each package's README is its NuGet page: short (the guides hold the rest) and with absolute links only, since a
    /// relative link does not resolve there.
    /// </summary>
    [Fact]
    public void EveryPackageReadmeIsShortWithAbsoluteLinks()
    {
        string[] packages = Directory.GetDirectories(Path.Combine(DocBlocks.Root, "src"))
            .Where(d => Directory.GetFiles(d, "*.csproj").Length == 1).ToArray();
        Assert.True(packages.Length >= 6, $"found {packages.Length} package folders under src/");
        foreach (string package in packages)
        {
            string name = Path.GetFileName(package);
            string path = Path.Combine(package, "README.md");
            Assert.True(File.Exists(path), $"{name} has no README.md (its NuGet page)");
            string text = File.ReadAllText(path);
            int lines = text.TrimEnd('\n').Split('\n').Length;
            Assert.True(lines <= 80, $"src/{name}/README.md has {lines} lines (at most 80: link to the guides)");
            foreach (Match link in Regex.Matches(text, @"\]\(([^)\s]+)\)"))
            {
                string target = link.Groups[1].Value;
                Assert.True(target.StartsWith("https://", StringComparison.Ordinal) || target.StartsWith('#'),
                    $"src/{name}/README.md links '{target}', which does not resolve on NuGet (use an absolute https link)");
            }
        }
    }
}
