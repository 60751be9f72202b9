using System.Net;
using System.Net.WebSockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests.Http2;

/// <summary>RFC 8441 on Kestrel through HttpClient's extended CONNECT: every validation rule, the 200 that leaves the
/// stream open, and the stream lifecycle (END_STREAM after Close, RST_STREAM from either side, one stream's failure
/// leaving the others echoing).</summary>
public sealed class ExtendedConnectTests
{
    private static readonly Action<WebSocketAcceptOptions> Strict = o => { o.AllowedOrigins = ["https://good.example"]; o.Subprotocols = ["v2.chat", "v1.chat"]; };

    private static Task<KestrelHost> StartAsync(Action<Microsoft.AspNetCore.Routing.IEndpointRouteBuilder>? more = null) => KestrelHost.StartAsync(
        map: app =>
        {
            app.MapWebSocket("/ws", static (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(sender, Echo), Strict);
            more?.Invoke(app);
        },
        listen: listen => listen.Protocols = HttpProtocols.Http2);

    private static void Echo(WebSocketFrameSender sender, WebSocketMessageType type, ReadOnlySpan<byte> payload) =>
        sender.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload);

    [Theory]
    [InlineData("websocket", "12", HttpStatusCode.BadRequest, true)]
    [InlineData("websocket", "8, 13", HttpStatusCode.BadRequest, true)]
    [InlineData("websocket", null, HttpStatusCode.BadRequest, true)]
    [InlineData("chat", "13", HttpStatusCode.BadRequest, false)]
    [InlineData("connect-udp", "13", HttpStatusCode.BadRequest, false)]
    public async Task BadExtendedConnectsAreRefused(string protocol, string? version, HttpStatusCode expected, bool namesVersion)
    {
        await using KestrelHost host = await StartAsync();
        using var client = new HttpMessageInvoker(Http2Requests.Handler());
        using HttpResponseMessage response = await client.SendAsync(Http2Requests.ExtendedConnect(host.BaseUrl, "/ws", protocol, version), RawHttp.Timeout());
        Assert.Equal(expected, response.StatusCode);
        Assert.Equal(HttpVersion.Version20, response.Version);
        Assert.Equal(namesVersion, response.Headers.TryGetValues("sec-websocket-version", out var versions) && versions.Single() == "13");
        Assert.False(response.Headers.Contains("connection"));
    }

    [Fact]
    public async Task APlainGetOverHttp2IsRefused()
    {
        await using KestrelHost host = await StartAsync();
        using var client = new HttpMessageInvoker(Http2Requests.Handler());
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri(host.BaseUrl, "/ws")) { Version = HttpVersion.Version20, VersionPolicy = HttpVersionPolicy.RequestVersionExact };
        using HttpResponseMessage response = await client.SendAsync(request, RawHttp.Timeout());
        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
    }

    [Fact]
    public async Task AClassicConnectIsRefused()
    {
        await using KestrelHost host = await StartAsync();
        using var client = new HttpMessageInvoker(Http2Requests.Handler());
        try
        {
            // HttpClient sends :path and :scheme with it, which makes the request malformed (RFC 9113 section 8.5).
            using HttpResponseMessage response = await client.SendAsync(Http2Requests.ExtendedConnect(host.BaseUrl, "/ws", protocol: null), RawHttp.Timeout());
            Assert.True(response.StatusCode is HttpStatusCode.BadRequest or HttpStatusCode.NotImplemented, $"got {response.StatusCode}");
        }
        catch (HttpRequestException error) when (error.InnerException is HttpProtocolException { ErrorCode: 0x1 })
        {
            // Kestrel resets the stream with PROTOCOL_ERROR: refused too.
        }

        await using RawWebSocket still = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws", client);
        await still.AssertEchoAsync("the connection goes on");
    }

    [Theory]
    [InlineData("https://evil.example", HttpStatusCode.Forbidden)]
    [InlineData("https://good.example", HttpStatusCode.OK)]
    [InlineData(null, HttpStatusCode.OK)]
    public async Task OriginsAreCheckedAsOverHttp11(string? origin, HttpStatusCode expected)
    {
        await using KestrelHost host = await StartAsync();
        using var client = new HttpMessageInvoker(Http2Requests.Handler());
        using HttpRequestMessage request = Http2Requests.ExtendedConnect(host.BaseUrl, "/ws");
        if (origin is not null)
        {
            request.Headers.TryAddWithoutValidation("origin", origin);
        }

        using HttpResponseMessage response = await client.SendAsync(request, RawHttp.Timeout());
        Assert.Equal(expected, response.StatusCode);
    }

    [Theory]
    [InlineData("v1.chat, v2.chat", "v2.chat")]
    [InlineData("v1.chat", "v1.chat")]
    [InlineData("mqtt", null)]
    public async Task TheServersPreferredSubprotocolIsSelected(string offered, string? selected)
    {
        await using KestrelHost host = await StartAsync();
        using var client = new HttpMessageInvoker(Http2Requests.Handler());
        using HttpRequestMessage request = Http2Requests.ExtendedConnect(host.BaseUrl, "/ws");
        request.Headers.TryAddWithoutValidation("sec-websocket-protocol", offered);
        using HttpResponseMessage response = await client.SendAsync(request, RawHttp.Timeout());
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(selected, response.Headers.TryGetValues("sec-websocket-protocol", out var values) ? values.Single() : null);
        Assert.False(response.Headers.Contains("sec-websocket-accept"));
    }

    [Fact]
    public async Task TheStreamStaysOpenAfterThe200AndEndsAfterTheCloseHandshake()
    {
        await using KestrelHost host = await StartAsync();
        await using RawWebSocket socket = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws");
        await socket.AssertEchoAsync("over one HTTP/2 stream");
        await socket.SendAsync(WireFrames.ClientClose(1000, "done"));
        var (status, before) = await socket.ReadUntilCloseAsync(answer: false); // asserts END_STREAM follows the Close
        Assert.Equal(1000, status);
        Assert.Empty(before);
    }

    [Fact]
    public async Task OneStreamsProtocolErrorLeavesTheOthersEchoing()
    {
        await using KestrelHost host = await StartAsync();
        using var connection = new HttpMessageInvoker(Http2Requests.Handler());
        await using RawWebSocket bad = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws", connection);
        await using RawWebSocket good = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws", connection);
        await good.AssertEchoAsync("before");
        await bad.SendAsync(WireFrames.Client(0x83, [1])); // reserved opcode

        // Close 1002, then END_STREAM at once (a half-close: the server does not wait for our answer to end its side).
        var (status, _) = await bad.ReadUntilCloseAsync(answer: false);
        Assert.Equal(1002, status);
        await bad.SendAsync(WireFrames.ClientClose(1002)); // our side is still open, and the server drains it
        await good.AssertEchoAsync("after");
        await using RawWebSocket third = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws", connection);
        await third.AssertEchoAsync("a new stream on the same connection");
    }

    [Fact]
    public async Task AfterAViolationAClientThatNeverEndsItsStreamIsGivenUpAtTheCloseTimeout()
    {
        var ended = new TaskCompletionSource<WebSocketCloseInfo>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using KestrelHost host = await StartAsync(app => app.MapWebSocket(
            "/short",
            async (_, channel) => ended.TrySetResult(await channel.RunAsync(sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, Echo))),
            o => o.Session = new WebSocketSessionOptions { CloseTimeout = TimeSpan.FromMilliseconds(300) }));
        using var connection = new HttpMessageInvoker(Http2Requests.Handler());
        await using RawWebSocket socket = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/short", connection);
        await socket.SendAsync(WireFrames.Client(0x83, [1])); // reserved opcode
        var (status, _) = await socket.ReadUntilCloseAsync(answer: false); // Close 1002, then END_STREAM at once
        Assert.Equal(1002, status);

        // The client never ends its side (nor answers): the server gives it the close timeout, then resets the stream
        // (RST_STREAM CANCEL) and the websocket ends.
        WebSocketCloseInfo info = await ended.Task.WaitAsync(TimeSpan.FromSeconds(20));
        Assert.Equal(WebSocketEndReason.ProtocolViolation, info.EndReason);
        Assert.Null(info.ReceivedStatus);
        // (HttpClient does not surface a reset that follows the server's END_STREAM: the close timeout ending the
        // websocket at all, with the client silent, is what is checked.)
        await EchoesOnAnotherStreamAsync(connection, host);
    }

    private static async Task EchoesOnAnotherStreamAsync(HttpMessageInvoker connection, KestrelHost host)
    {
        // The connection is unharmed: another stream echoes.
        await using RawWebSocket next = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws", connection);
        await next.AssertEchoAsync("after the reset");
    }

    [Fact]
    public async Task TheClientsResetAbortsThatWebSocketOnly()
    {
        var ended = new TaskCompletionSource<WebSocketCloseInfo>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using KestrelHost host = await StartAsync(app => app.MapWebSocket("/watched", async (context, channel) =>
        {
            WebSocketCloseInfo info = await channel.RunAsync(sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, Echo));
            ended.TrySetResult(info);
        }));
        using var connection = new HttpMessageInvoker(Http2Requests.Handler());
        RawWebSocket watched = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/watched", connection);
        await using RawWebSocket other = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws", connection);
        await watched.AssertEchoAsync("ping");
        await watched.DisposeAsync(); // disposing an unfinished duplex stream sends RST_STREAM (CANCEL)
        WebSocketCloseInfo info = await ended.Task.WaitAsync(TimeSpan.FromSeconds(20));
        Assert.Null(info.ReceivedStatus);
        Assert.False(info.IsClean);
        Assert.Equal(CloseStatus.AbnormalClosure, info.Status);
        await other.AssertEchoAsync("still here");
    }

    [Fact]
    public async Task AnApplicationFailureClosesThatStreamWith1011Only()
    {
        await using KestrelHost host = await StartAsync(app => app.MapWebSocket("/abortable", static (_, sender) =>
            new WebSocketMessageListener<WebSocketFrameSender>(sender, (s, type, payload) =>
            {
                if (payload.SequenceEqual("abort"u8))
                {
                    throw new InvalidOperationException("the application gives up");
                }

                Echo(s, type, payload);
            })));
        using var connection = new HttpMessageInvoker(Http2Requests.Handler());
        await using RawWebSocket doomed = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/abortable", connection);
        await using RawWebSocket other = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws", connection);
        await doomed.AssertEchoAsync("fine so far");
        await doomed.SendAsync(WireFrames.Client(WebSocketOpcode.Text, "abort"u8));
        var (status, _) = await doomed.ReadUntilCloseAsync();
        Assert.Equal(1011, status);
        await other.AssertEchoAsync("unaffected");
    }

    [Fact]
    public async Task TheServersAbortResetsThatStreamWithCancelOnly()
    {
        await using KestrelHost host = await StartAsync(app => app.MapWebSocket("/abort", static (_, channel) =>
            channel.RunAsync(sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, (s, type, payload) =>
            {
                if (payload.SequenceEqual("abort"u8))
                {
                    channel.Abort();
                    return;
                }

                Echo(s, type, payload);
            }))));
        using var connection = new HttpMessageInvoker(Http2Requests.Handler());
        await using RawWebSocket doomed = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/abort", connection);
        await using RawWebSocket other = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws", connection);
        await doomed.AssertEchoAsync("fine so far");
        await doomed.SendAsync(WireFrames.Client(WebSocketOpcode.Text, "abort"u8));
        var reset = await Assert.ThrowsAnyAsync<Exception>(() => doomed.ReadFrameAsync());
        Assert.Equal(0x8, Assert.IsType<HttpProtocolException>(reset is HttpProtocolException ? reset : reset.InnerException).ErrorCode); // CANCEL
        await other.AssertEchoAsync("unaffected");
    }
}
