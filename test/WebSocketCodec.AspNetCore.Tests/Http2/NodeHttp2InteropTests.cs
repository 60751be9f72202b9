using WebSocketCodec.Samples.EchoServer;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Http2;

/// <summary>Node's own <c>http2</c> module as an RFC 8441 client (it checks <c>enableConnectProtocol</c> in our
/// SETTINGS) against the echo server, h2c prior knowledge and TLS on the port that also serves HTTP/1.1: fifty
/// websockets on one connection, every length, Close then END_STREAM, and the refusals of a wrong version and a
/// classic CONNECT.</summary>
public sealed class NodeHttp2InteropTests(NodeFixture node, ITestOutputHelper output) : IClassFixture<NodeFixture>
{
    [SkippableTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task NodeHttp2ClientEchoesOnFiftyStreams(bool tls)
    {
        Skip.If(node.SkipReason is not null, node.SkipReason);

        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, Tls = tls });
        var (exit, text) = await node.RunAsync("node", $"h2-client.mjs {server.BaseUrl} {EchoServerHost.EchoPath} 50 0,1,125,126,127,65535,65536,70000", TimeSpan.FromSeconds(90));
        output.WriteLine(text);
        Assert.Equal(0, exit);
        Assert.StartsWith("ok 50 800 classic-connect: status 501", text, StringComparison.Ordinal);
        Assert.Equal(51, server.Statistics.Count(EchoStatistics.Http2ExtendedConnect)); // with the refused version 8
    }
}
