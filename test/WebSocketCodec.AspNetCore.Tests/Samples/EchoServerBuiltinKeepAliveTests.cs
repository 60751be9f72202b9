using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>The demo server's <c>--keepalive</c> with <c>--codec builtin</c> reaches ASP.NET Core's websockets.</summary>
public sealed class EchoServerBuiltinKeepAliveTests
{
    [Fact]
    public async Task TheBuiltinCodecPingsAQuietPeer()
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(
            new EchoServerOptions { Port = 0, Codec = "builtin", KeepAlive = TimeSpan.FromSeconds(1) });
        await using RawWebSocket socket = await RawWebSocket.OpenAsync(server);
        await socket.AssertEchoAsync("still here");

        var ping = await socket.ReadFrameAsync(); // silent from now on: the next frame is the keep-alive's
        Assert.Equal(WebSocketOpcode.Ping, ping!.Value.Opcode);
    }
}
