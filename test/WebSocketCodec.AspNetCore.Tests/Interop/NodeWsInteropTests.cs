using System.Net.WebSockets;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.EchoServer;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Interop;

/// <summary>node's <c>ws</c> package, an independent implementation, against our server and our client.</summary>
public sealed class NodeWsInteropTests(NodeFixture node, ITestOutputHelper output) : IClassFixture<NodeFixture>
{
    private const string Sizes = "0,1,125,126,127,65535,65536,70000";

    [SkippableTheory]
    [InlineData("ours", false)]
    [InlineData("ours", true)]
    [InlineData("builtin", false)]
    public async Task WsClientGetsEveryMessageBackFromTheEchoServer(string codec, bool tls)
    {
        Skip.If(node.SkipReason is not null, node.SkipReason);

        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, Codec = codec, Tls = tls });
        var (exit, text) = await node.RunAsync("node", $"echo-client.mjs {server.Url} {Sizes}", TimeSpan.FromSeconds(60));
        output.WriteLine(text);
        Assert.Equal(0, exit);
        Assert.StartsWith("ok 16", text, StringComparison.Ordinal);
    }

    [SkippableTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task WsClientGetsEveryMessageBackFromTheEchoServerOnTheLeanTransport(bool tls)
    {
        Skip.If(node.SkipReason is not null, node.SkipReason);

        await using LeanEchoServerHost server = LeanEchoServerHost.Start(new EchoServerOptions { Port = 0, Transport = "lean", Tls = tls });
        var (exit, text) = await node.RunAsync("node", $"echo-client.mjs {server.Url} {Sizes}", TimeSpan.FromSeconds(60));
        output.WriteLine(text);
        Assert.Equal(0, exit);
        Assert.StartsWith("ok 16", text, StringComparison.Ordinal);
    }

    [SkippableFact]
    public async Task OurClientGetsEveryMessageBackFromAWsServer()
    {
        Skip.If(node.SkipReason is not null, node.SkipReason);

        var (process, port) = await node.StartEchoServerAsync();
        try
        {
            await using MessageWebSocket socket = await WebSocketClient.ConnectMessagesAsync(new Uri($"ws://127.0.0.1:{port}/"));
            await EchoRoundTrip.RunAsync(socket);
            WebSocketCloseInfo info = await socket.CloseAsync((CloseStatus)1000, "bye", RawHttp.Timeout());
            Assert.True(info.IsClean, info.ToString());
            Assert.Equal((CloseStatus)1000, info.ReceivedStatus);
        }
        finally
        {
            process.Kill(entireProcessTree: true);
            await process.WaitForExitAsync();
            process.Dispose();
        }
    }
}
