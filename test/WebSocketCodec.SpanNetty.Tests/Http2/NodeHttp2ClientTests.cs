using WebSocketCodec.Samples.SpanNettyEchoServer;
using WebSocketCodec.SpanNetty.Tests.Infrastructure;
using WebSocketCodec.Testing;
using Xunit.Abstractions;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>Node's own <c>http2</c> module as an RFC 8441 client (it checks <c>enableConnectProtocol</c> in our
/// SETTINGS) against the SpanNetty HTTP/2 server over h2c: fifty websockets on one connection, every length, Close then
/// END_STREAM, and the refusals of a wrong version and a classic CONNECT (the script is the AspNetCore tests').</summary>
public sealed class NodeHttp2ClientTests(ITestOutputHelper output) : LeakCheckedTests
{
    [SkippableFact]
    public async Task NodeHttp2ClientEchoesOnFiftyStreams()
    {
        Skip.If(!File.Exists("/usr/bin/node") && !File.Exists("/usr/local/bin/node"), "node is not installed: the node http2 interop did not run.");
        await using Http2Server server = await Http2Server.StartAsync(EchoCallbacks.Frames);
        string directory = Path.Combine(AppContext.BaseDirectory, "Http2", "node");
        var (exit, text) = await NodeFixture.RunAsync(
            "node", $"h2-client.mjs http://127.0.0.1:{server.Port} /ws 50 0,1,125,126,127,65535,65536,70000", directory, TimeSpan.FromSeconds(90));
        output.WriteLine(text);
        Assert.Equal(0, exit);
        Assert.StartsWith("ok 50 800 classic-connect: status 501", text, StringComparison.Ordinal);
        await Http2EchoTests.Eventually(server, 50);
        Assert.Equal(50, server.Ended.Count(info => info.IsClean));
    }
}
