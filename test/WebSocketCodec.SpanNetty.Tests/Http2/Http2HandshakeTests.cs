using System.Net;
using System.Net.WebSockets;
using WebSocketCodec.AspNetCore.Tests.Infrastructure;
using WebSocketCodec.Samples.SpanNettyEchoServer;
using WebSocketCodec.SpanNetty.Tests.Infrastructure;
using static WebSocketCodec.SpanNetty.Tests.Http2.H2Clients;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>The SpanNetty HTTP/2 server's answers to extended CONNECTs and other requests: the Kestrel endpoint's
/// statuses, the subprotocol, and a request after a refusal on the same connection.</summary>
public sealed class Http2HandshakeTests : LeakCheckedTests
{
    [Theory]
    [InlineData("/nowhere", "websocket", "13", HttpStatusCode.NotFound, false)]
    [InlineData("/ws", "websocket", "8", HttpStatusCode.BadRequest, true)]
    [InlineData("/ws", "websocket", null, HttpStatusCode.BadRequest, true)]
    [InlineData("/ws", "chat", "13", HttpStatusCode.BadRequest, false)]
    [InlineData("/ws", null, "13", HttpStatusCode.NotImplemented, false)]
    public async Task BadRequestsAreRefusedWithKestrelsStatuses(string path, string? protocol, string? version, HttpStatusCode expected, bool namesVersion)
    {
        await using Http2Server server = await Http2Server.StartAsync(EchoCallbacks.Frames);
        using HttpMessageInvoker invoker = Invoker();
        using HttpRequestMessage request = Http2Requests.ExtendedConnect(server.HttpUrl("/"), path, protocol, version);
        using HttpResponseMessage response = await invoker.SendAsync(request, Timeout());
        Assert.Equal(expected, response.StatusCode);
        Assert.Equal(namesVersion, response.Headers.TryGetValues("sec-websocket-version", out var values) && values.Single() == "13");

        // The connection goes on: a websocket opens after the refusal.
        using ClientWebSocket client = await ConnectAsync(invoker, server.Url());
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, Timeout());
        Assert.Single(server.Connections);
    }

    [Theory]
    [InlineData("https://evil.example", HttpStatusCode.Forbidden)]
    [InlineData("https://good.example", HttpStatusCode.OK)]
    public async Task OriginsAreChecked(string origin, HttpStatusCode expected)
    {
        await using Http2Server server = await Http2Server.StartAsync(EchoCallbacks.Frames, new WebSocketAcceptOptions { AllowedOrigins = ["https://good.example"] });
        using HttpMessageInvoker invoker = Invoker();
        using HttpRequestMessage request = Http2Requests.ExtendedConnect(server.HttpUrl("/"), "/ws");
        request.Headers.TryAddWithoutValidation("origin", origin);
        using HttpResponseMessage response = await invoker.SendAsync(request, Timeout());
        Assert.Equal(expected, response.StatusCode);
    }

    [Fact]
    public async Task TheSubprotocolIsNegotiated()
    {
        await using Http2Server server = await Http2Server.StartAsync(EchoCallbacks.Frames, new WebSocketAcceptOptions { Subprotocols = ["v2.chat"] });
        using HttpMessageInvoker invoker = Invoker();
        using ClientWebSocket client = await ConnectAsync(invoker, server.Url(), options =>
        {
            options.AddSubProtocol("v1.chat");
            options.AddSubProtocol("v2.chat");
        });
        Assert.Equal("v2.chat", client.SubProtocol);
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, Timeout());
    }

    [Fact]
    public async Task AnUnmaskedFrameIsAnsweredWith1002()
    {
        await using Http2Server server = await Http2Server.StartAsync(EchoCallbacks.Frames);
        using HttpMessageInvoker invoker = Invoker();
        using HttpRequestMessage request = Http2Requests.ExtendedConnect(server.HttpUrl("/"), "/ws");
        using HttpResponseMessage response = await invoker.SendAsync(request, Timeout());
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        await using Stream stream = await response.Content.ReadAsStreamAsync(Timeout());
        // FIN=1, Text(0x1), MASK=0, len=2, "hi": a client's frame must be masked (RFC 6455 §5.1).
        await stream.WriteAsync(new byte[] { 0x81, 0x02, (byte)'h', (byte)'i' }, Timeout());
        await stream.FlushAsync(Timeout());
        var header = new byte[4];
        await stream.ReadExactlyAsync(header, Timeout());
        Assert.Equal(0x88, header[0]); // FIN=1, Close, unmasked (the server's)
        Assert.Equal(1002, (header[2] << 8) | header[3]);
        WebSocketCloseInfo info = await Http2EchoTests.Eventually(server);
        Assert.Equal(WebSocketEndReason.ProtocolViolation, info.EndReason);
    }
}
