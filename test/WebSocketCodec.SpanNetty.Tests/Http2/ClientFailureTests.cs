using System.Collections.Concurrent;
using DotNetty.Codecs.Http2;
using WebSocketCodec.SpanNetty.Tests.Infrastructure;
using static WebSocketCodec.SpanNetty.Tests.Http2.ClientHarness;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>Our SpanNetty HTTP/2 client against bare SpanNetty HTTP/2 servers: one whose SETTINGS do not enable the
/// extended CONNECT, one that never answers, and answers that choose what was not offered.</summary>
public sealed class ClientFailureTests : LeakCheckedTests
{
    private readonly ConcurrentQueue<IHttp2Headers> _requests = new();
    private readonly ConcurrentQueue<Http2Error> _resets = new();

    private static Uri Url(Http2Server server) => new($"ws://127.0.0.1:{server.Port}");

    [Fact]
    public async Task AServerWithoutEnableConnectProtocolIsRefusedClearly()
    {
        await using Http2Server server = await ClientFakeServer.StartAsync(false, _ => ClientFakeServer.Status("200"), _requests, _resets);
        var error = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => ConnectAsync(Url(server)));
        Assert.Contains("SETTINGS_ENABLE_CONNECT_PROTOCOL", error.Message, StringComparison.Ordinal);
        Assert.Empty(_requests); // nothing was asked of it
    }

    [Fact]
    public async Task AConfiguredConnectionRefusesToOpenOnAServerWithoutEnableConnectProtocol()
    {
        await using Http2Server server = await ClientFakeServer.StartAsync(false, _ => ClientFakeServer.Status("200"), _requests, _resets);
        Http2WebSocketClient? client = null;
        DotNetty.Transport.Channels.IChannel channel = await new DotNetty.Transport.Bootstrapping.Bootstrap()
            .Group(CallbacksServer.Loops)
            .Channel<DotNetty.Transport.Channels.Sockets.TcpSocketChannel>()
            .Handler(new DotNetty.Transport.Channels.ActionChannelInitializer<DotNetty.Transport.Channels.IChannel>(c => client = Http2WebSocketClient.Configure(c.Pipeline, Url(server))))
            .ConnectAsync(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, server.Port));
        await using (client!)
        {
            var error = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => OpenAsync(client!, "/ws"));
            Assert.Contains("SETTINGS_ENABLE_CONNECT_PROTOCOL", error.Message, StringComparison.Ordinal);
            Assert.Same(channel, client!.Channel);
        }
    }

    [Fact]
    public async Task AfterAGoAwayNoStreamIsOpenedWhileTheConnectionLives()
    {
        await using Http2Server server = await ClientFakeServer.StartAsync(true, _ => ClientFakeServer.Status("200"), _requests, _resets);
        await using Http2WebSocketClient client = await ConnectAsync(Url(server));
        ReceivingWebSocket first = await OpenAsync(client, "/ws");
        Assert.True(server.Connections.TryPeek(out var connection));
        await connection!.WriteAndFlushAsync(new DefaultHttp2GoAwayFrame(Http2Error.NoError));
        await Eventually.True(() => client.Channel.Pipeline.Get<Http2ClientConnectionHandler>()?.GoAway is not null);

        var refused = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => OpenAsync(client, "/ws"));
        Assert.Contains("takes no new websocket: the server sent GOAWAY (NoError, last stream ", refused.Message, StringComparison.Ordinal);
        Assert.True(client.Channel.IsActive, "the connection still serves the websocket it had");
        Assert.Single(_requests); // the refused one never reached the server
        await first.Opened.AbortAsync();
    }

    [Fact]
    public async Task AServerThatNeverAnswersTimesOutAndItsStreamIsReset()
    {
        await using Http2Server server = await ClientFakeServer.StartAsync(true, _ => null, _requests, _resets);
        await using Http2WebSocketClient client = await ConnectAsync(Url(server));
        var error = await Assert.ThrowsAsync<WebSocketHandshakeException>(() =>
            OpenAsync(client, "/chat?room=1", new WebSocketClientOptions { HandshakeTimeout = TimeSpan.FromSeconds(1) }));
        Assert.Contains("did not answer the extended CONNECT within 1 s", error.Message, StringComparison.Ordinal);
        await Eventually.True(() => !_resets.IsEmpty);
        Assert.Equal(Http2Error.Cancel, Assert.Single(_resets));

        // What the request carried (RFC 8441 §4).
        IHttp2Headers request = Assert.Single(_requests);
        Assert.Equal("CONNECT", request.Method.ToString());
        Assert.Equal("websocket", request.Get(new DotNetty.Common.Utilities.AsciiString(":protocol"), null)?.ToString());
        Assert.Equal("http", request.Scheme.ToString());
        Assert.Equal("/chat?room=1", request.Path.ToString());
        Assert.Equal($"127.0.0.1:{server.Port}", request.Authority.ToString());
        Assert.Equal("13", request.Get(new DotNetty.Common.Utilities.AsciiString("sec-websocket-version"), null)?.ToString());
        Assert.True(client.Channel.IsActive, "the connection outlives the stream");
    }

    [Theory]
    [InlineData("sec-websocket-protocol", "bogus", "subprotocol 'bogus', which was not offered")]
    [InlineData("sec-websocket-extensions", "x-foo", "extension 'x-foo', though none was offered")]
    public async Task AnAnswerWithWhatWasNotOfferedFails(string name, string value, string message)
    {
        await using Http2Server server = await ClientFakeServer.StartAsync(true, _ => ClientFakeServer.Status("200", (name, value)), _requests, _resets);
        await using Http2WebSocketClient client = await ConnectAsync(Url(server));
        var error = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => OpenAsync(client, "/ws", new WebSocketClientOptions { Subprotocols = ["chat"] }));
        Assert.Contains(message, error.Message, StringComparison.Ordinal);
        await Eventually.True(() => !_resets.IsEmpty); // the accepted stream is reset
    }

    [Fact]
    public async Task ARefusalCarriesTheStatus()
    {
        await using Http2Server server = await ClientFakeServer.StartAsync(true, _ => ClientFakeServer.Status("400", ("sec-websocket-version", "13")), _requests, _resets);
        await using Http2WebSocketClient client = await ConnectAsync(Url(server));
        var error = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => OpenAsync(client, "/ws"));
        Assert.Equal(400, error.StatusCode);
    }
}
