using System.Collections.Concurrent;
using DotNetty.Buffers;
using DotNetty.Transport.Channels;
using static WebSocketCodec.SpanNetty.Tests.Http2.H2Clients;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>
/// Handshake-only mode (<see cref="Http2WebSocketServer.ConfigureHandshakeOnly"/>): the extended CONNECT is validated
/// and answered 200 (with the subprotocol chosen), then the application gets the stream's bytes as they come (here,
/// bytes that are no websocket frames at all) and writes its own back; refused requests get the usual statuses and
/// never reach the application; the client's end of the stream closes the application's channel without a leak.
/// </summary>
public sealed class Http2HandshakeOnlyTests : LeakCheckedTests
{
    [Fact]
    public async Task TheApplicationGetsTheStreamsBytesAndEchoesThemRaw()
    {
        var accepted = new ConcurrentQueue<(string Path, string? Subprotocol)>();
        var closed = new ConcurrentQueue<IChannel>();
        await using Http2Server server = await Http2Server.StartAsync(pipeline => Http2WebSocketServer.ConfigureHandshakeOnly(
            pipeline,
            (request, target) => target.StartsWith("/raw", StringComparison.Ordinal)
                ? new Http2StreamAccepted((stream, upgrade, subprotocol) =>
                {
                    accepted.Enqueue((target, subprotocol));
                    _ = stream.CloseCompletion.ContinueWith(done => closed.Enqueue(stream), TaskScheduler.Default);
                    stream.Pipeline.AddLast("raw-echo", new RawEcho());
                })
                : null,
            new WebSocketAcceptOptions { Subprotocols = ["chat"] }));
        using var invoker = new HttpMessageInvoker(Http2Requests.Handler());

        using (HttpResponseMessage missing = await invoker.SendAsync(Http2Requests.ExtendedConnect(server.HttpUrl("/"), "/other"), Timeout()))
        {
            Assert.Equal(System.Net.HttpStatusCode.NotFound, missing.StatusCode);
        }

        using HttpRequestMessage request = Http2Requests.ExtendedConnect(server.HttpUrl("/"), "/raw?x=1");
        request.Headers.TryAddWithoutValidation("sec-websocket-protocol", "chat");
        using HttpResponseMessage response = await invoker.SendAsync(request, Timeout());
        Assert.Equal(System.Net.HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("chat", Assert.Single(response.Headers.GetValues("sec-websocket-protocol")));
        await using (Stream stream = await response.Content.ReadAsStreamAsync(Timeout()))
        {
            byte[] bytes = Payload(200_000); // more than a stream's window: the application's reads reopen it
            var reading = Task.Run(async () =>
            {
                byte[] back = new byte[bytes.Length];
                await stream.ReadExactlyAsync(back, Timeout());
                return back;
            });
            for (int offset = 0; offset < bytes.Length; offset += 7000)
            {
                await stream.WriteAsync(bytes.AsMemory(offset, Math.Min(7000, bytes.Length - offset)), Timeout());
                await stream.FlushAsync(Timeout());
            }

            Assert.Equal(bytes, await reading);
        }

        Assert.Equal(("/raw?x=1", (string?)"chat"), Assert.Single(accepted));
        await ClientWebSocketTlsTests.UntilAsync(() => !closed.IsEmpty); // the client's reset closed the stream's channel
        Assert.Single(server.Connections);
    }

    /// <summary>Writes back every buffer it reads; flushes once per read cycle.</summary>
    private sealed class RawEcho : ChannelHandlerAdapter
    {
        public override void ChannelRead(IChannelHandlerContext context, object message) =>
            _ = context.WriteAsync(message is IByteBuffer ? message : throw new InvalidOperationException($"not bytes: {message}"));

        public override void ChannelReadComplete(IChannelHandlerContext context) => context.Flush();
    }
}
