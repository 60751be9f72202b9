using System.Net;
using System.Net.Security;
using System.Net.WebSockets;
using System.Threading.Channels;
using DotNetty.Codecs.Http2;
using DotNetty.Transport.Channels;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Pipelines;
using System.Security.Cryptography.X509Certificates;
using WebSocketCodec.SpanNetty.Tests.Infrastructure;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>What the client tests share: our SpanNetty HTTP/2 client on the shared event loops (TLS certificates of
/// the tests' servers trusted), a websocket whose received messages are queued, and our Kestrel endpoint over h2c or
/// TLS.</summary>
internal static class ClientHarness
{
    public static Http2WebSocketClientOptions Options { get; } = new()
    {
        Tls = new SslClientAuthenticationOptions { TargetHost = "localhost", RemoteCertificateValidationCallback = (_, _, _, _) => true },
    };

    /// <summary>A self-signed certificate for localhost and 127.0.0.1, made once.</summary>
    public static X509Certificate2 Certificate { get; } = OnePortServer.CreateCertificate();

    public static Task<Http2WebSocketClient> ConnectAsync(Uri server, Http2WebSocketClientOptions? options = null) =>
        Http2WebSocketClient.ConnectAsync(CallbacksServer.Loops, server, options ?? Options);

    public static async Task<ReceivingWebSocket> OpenAsync(Http2WebSocketClient client, string path, WebSocketClientOptions? options = null, CountingPool? pool = null)
    {
        var received = Channel.CreateUnbounded<(WebSocketMessageType, byte[])>();
        Http2ClientWebSocket opened = await client.OpenAsync(
            path,
            sender => new WebSocketMessageListener<WebSocketFrameSender>(
                sender, (_, type, payload) => received.Writer.TryWrite((type, payload.ToArray())), pool, _ => received.Writer.TryComplete()),
            options);
        return new ReceivingWebSocket(opened, received.Reader);
    }

    /// <summary>Our Kestrel endpoint echoing at <c>/echo</c>: h2c only (prior knowledge), or TLS with ALPN h2 and
    /// http/1.1.</summary>
    public static async Task<WebApplication> StartKestrelAsync(bool tls, Action<WebSocketAcceptOptions>? configure = null)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.ConfigureHttp2ForWebSockets();
            kestrel.Listen(IPAddress.Loopback, 0, listen =>
            {
                if (tls)
                {
                    listen.Protocols = HttpProtocols.Http1AndHttp2;
                    listen.UseHttps(Certificate);
                }
                else
                {
                    listen.Protocols = HttpProtocols.Http2;
                }
            });
        });
        WebApplication app = builder.Build();
        app.MapWebSocket(
            "/echo",
            (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(sender, static (s, type, payload) =>
                s.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload)),
            configure);
        await app.StartAsync();
        return app;
    }

    public static Uri KestrelUrl(WebApplication app) =>
        new(app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First()
            .Replace("https://", "wss://", StringComparison.Ordinal).Replace("http://", "ws://", StringComparison.Ordinal));

    public static byte[] Payload(int size)
    {
        var payload = new byte[size];
        new Random(size).NextBytes(payload);
        return payload;
    }
}

/// <summary>A websocket our HTTP/2 client opened; the messages it receives are queued.</summary>
internal sealed class ReceivingWebSocket(Http2ClientWebSocket opened, ChannelReader<(WebSocketMessageType Type, byte[] Payload)> received)
{
    public Http2ClientWebSocket Opened { get; } = opened;

    public WebSocketChannelHandler WebSocket => Opened.WebSocket;

    public Http2StreamByteAdapter Adapter { get; } = opened.Stream.Pipeline.Get<Http2StreamByteAdapter>();

    public Task SendAsync(WebSocketOpcode opcode, byte[] payload) => WebSocket.Sender.SendAsync(opcode, payload).AsTask();

    public async Task<(WebSocketMessageType Type, byte[] Payload)> ReceiveAsync() =>
        await received.ReadAsync().AsTask().WaitAsync(TimeSpan.FromSeconds(20));

    public async Task EchoAsync(WebSocketOpcode opcode, byte[] payload)
    {
        await SendAsync(opcode, payload);
        var (type, echoed) = await ReceiveAsync();
        Assert.Equal(opcode == WebSocketOpcode.Text ? WebSocketMessageType.Text : WebSocketMessageType.Binary, type);
        Assert.Equal(payload, echoed);
    }

    public Task<WebSocketCloseInfo> CloseAsync() => WebSocket.Sender.CloseAsync(CloseStatus.NormalClosure, "bye").WaitAsync(TimeSpan.FromSeconds(20));
}
