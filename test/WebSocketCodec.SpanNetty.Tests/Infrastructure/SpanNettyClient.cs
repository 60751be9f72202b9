using System.Net;
using System.Net.Security;
using System.Net.WebSockets;
using System.Threading.Channels;
using DotNetty.Transport.Bootstrapping;
using DotNetty.Transport.Channels;
using DotNetty.Transport.Channels.Sockets;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.SpanNetty.Tests.Infrastructure;

/// <summary>Our client on SpanNetty (managed sockets, TLS by SslStreamHandler when wss): messages received are queued
/// for the test to read.</summary>
internal sealed class SpanNettyClient : IAsyncDisposable
{
    private readonly IEventLoopGroup _group;
    private IChannel? _channel;
    private readonly Channel<(WebSocketMessageType Type, byte[] Payload)> _received = Channel.CreateUnbounded<(WebSocketMessageType, byte[])>();

    private SpanNettyClient(IEventLoopGroup group) => _group = group;

    public WebSocketChannelHandler WebSocket { get; private set; } = null!;

    public static async Task<SpanNettyClient> ConnectAsync(Uri url, WebSocketClientOptions? options = null, PerMessageDeflateOptions? deflate = null)
    {
        var client = new SpanNettyClient(new MultithreadEventLoopGroup(1));
        var upgrade = new WebSocketClientUpgradeHandler(url, sender => new WebSocketMessageListener<WebSocketFrameSender>(sender,
            (_, type, payload) => client._received.Writer.TryWrite((type, payload.ToArray())),
            onClose: _ => client._received.Writer.TryComplete()), deflate is null ? options : (options ?? WebSocketClientOptions.Default) with { Deflate = deflate });
        try
        {
            client._channel = await new Bootstrap()
                .Group(client._group)
                .Channel<TcpSocketChannel>()
                .Option(ChannelOption.TcpNodelay, true)
                .Handler(new ActionChannelInitializer<IChannel>(channel =>
                {
                    if (url.Scheme == "wss")
                    {
                        channel.Pipeline.AddLast("tls", SslStreamHandler.Client(new SslClientAuthenticationOptions
                        {
                            TargetHost = "localhost",
                            RemoteCertificateValidationCallback = (_, _, _, _) => true,
                        }));
                    }

                    channel.Pipeline.AddLast("upgrade", upgrade);
                }))
                .ConnectAsync(new IPEndPoint(IPAddress.Parse(url.Host), url.Port));
            client.WebSocket = await upgrade.Completion.WaitAsync(TimeSpan.FromSeconds(20));
            return client;
        }
        catch
        {
            await client.DisposeAsync();
            throw;
        }
    }

    public Task SendTextAsync(string text) => WebSocket.Sender.SendAsync(WebSocketOpcode.Text, System.Text.Encoding.UTF8.GetBytes(text)).AsTask();

    public Task SendAsync(WebSocketOpcode opcode, byte[] payload, bool fin = true) => WebSocket.Sender.SendAsync(opcode, payload, fin).AsTask();

    public async Task<(WebSocketMessageType Type, byte[] Payload)> ReceiveAsync() =>
        await _received.Reader.ReadAsync().AsTask().WaitAsync(TimeSpan.FromSeconds(20));

    public Task<WebSocketCloseInfo> CloseAsync(ushort status = 1000) => WebSocket.Sender.CloseAsync((CloseStatus)status).WaitAsync(TimeSpan.FromSeconds(20));

    /// <summary>Closes the connection (a TLS one after its close_notify is written), then stops the loop: SpanNetty's
    /// socket transport fails the process when an I/O operation completes after its loop has terminated.</summary>
    public async ValueTask DisposeAsync()
    {
        if (_channel is { } channel)
        {
            await channel.CloseAsync().WaitAsync(TimeSpan.FromSeconds(5));
        }

        await _group.ShutdownGracefullyAsync(TimeSpan.FromMilliseconds(100), TimeSpan.FromSeconds(2));
    }
}
