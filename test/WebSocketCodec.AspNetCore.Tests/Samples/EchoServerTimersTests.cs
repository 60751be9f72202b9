using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>The demo server's <c>--keepalive</c> and <c>--idle-timeout</c>, seen from a raw client.</summary>
public sealed class EchoServerTimersTests
{
    [Fact]
    public async Task AnIdlePeerIsClosedWith1001()
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, IdleTimeout = TimeSpan.FromSeconds(1) });
        await using RawWebSocket socket = await RawWebSocket.OpenAsync(server);
        await socket.AssertEchoAsync("still here");

        var (status, before) = await socket.ReadUntilCloseAsync(); // silent from now on
        Assert.Equal(1001, status);
        Assert.Empty(before);
    }

    [Fact]
    public async Task KeepAlivePingsAQuietPeerAndGivesUpOneThatNeverAnswers()
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, KeepAlive = TimeSpan.FromSeconds(1) });
        await using RawWebSocket socket = await RawWebSocket.OpenAsync(server);

        var ping = await socket.ReadFrameAsync();
        Assert.Equal(WebSocketOpcode.Ping, ping!.Value.Opcode);

        // No Pong: the server gives the peer up with 1001 once the Pong timeout passes.
        var (status, before) = await socket.ReadUntilCloseAsync();
        Assert.Equal(1001, status);
        Assert.All(before, f => Assert.Equal(WebSocketOpcode.Ping, f.Opcode));
    }

    [Fact]
    public void NegativeSecondsAreRefused()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new WebSocketSession(WebSocketRole.Server, new EchoServerOptions { IdleTimeout = TimeSpan.FromSeconds(-1) }.Session));
    }

    [Fact]
    public void TheDemoRunsTheLibrarysSafeDefaultsUnlessToldOtherwise()
    {
        var defaults = new EchoServerOptions();
        Assert.Equal(WebSocketSessionOptions.Default, defaults.Session with { TimeProvider = null });
        Assert.Equal(TimeSpan.FromSeconds(30), defaults.Session.KeepAliveInterval);
        Assert.Equal(TimeSpan.FromSeconds(15), defaults.Session.KeepAliveTimeout);
        Assert.Equal(WebSocketAcceptOptions.Unlimited, Accepted(defaults).MaxConcurrentWebSockets);
        Assert.Equal(new WebSocketAcceptOptions().MaxConcurrentWebSockets, Accepted(defaults).MaxConcurrentWebSockets);

        var off = new EchoServerOptions { KeepAlive = TimeSpan.Zero, MaxWebSockets = 19_000 };
        Assert.Equal(TimeSpan.Zero, off.Session.KeepAliveInterval);
        Assert.Equal(TimeSpan.Zero, off.Session.KeepAliveTimeout);
        Assert.Equal(19_000, Accepted(off).MaxConcurrentWebSockets);
    }

    private static WebSocketAcceptOptions Accepted(EchoServerOptions options)
    {
        var accept = new WebSocketAcceptOptions();
        options.ConfigureAccept(accept);
        return accept;
    }
}
