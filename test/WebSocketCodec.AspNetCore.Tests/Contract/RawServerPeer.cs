using System.Security.Cryptography;
using System.Text;
using System.Threading.Channels;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using WebSocketCodec.Testing.Contract;

namespace WebSocketCodec.AspNetCore.Tests.Contract;

/// <summary>The server side of the client contract: Kestrel accepts the websocket at <c>/ws</c> by hand (an HTTP/1.1
/// upgrade, or an RFC 8441 extended CONNECT on h2c) and hands the test the raw stream as a <see cref="RawServerPeer"/>:
/// unmasked frames of any kind out, the client's frames in (every rule of a server's reading checked).</summary>
internal sealed class RawServerHost : IAsyncDisposable
{
    private readonly KestrelHost _host;
    private readonly Channel<RawServerPeer> _accepted;

    private RawServerHost(KestrelHost host, Channel<RawServerPeer> accepted)
    {
        _host = host;
        _accepted = accepted;
    }

    public Uri Url => _host.WebSocketUrl("/ws");

    /// <summary>Starts Kestrel; with <paramref name="answerDeflate"/> an offer of permessage-deflate is accepted as
    /// <c>permessage-deflate</c> (context takeover both ways, 15-bit windows).</summary>
    public static async Task<RawServerHost> StartAsync(bool http2, bool answerDeflate = false)
    {
        var accepted = Channel.CreateUnbounded<RawServerPeer>();
        KestrelHost host = await KestrelHost.StartAsync(
            map: app => app.Map("/ws", (HttpContext context) => AcceptAsync(context, accepted.Writer, answerDeflate)),
            listen: http2 ? listen => listen.Protocols = HttpProtocols.Http2 : null);
        return new RawServerHost(host, accepted);
    }

    /// <summary>The next websocket accepted.</summary>
    public async Task<RawServerPeer> AcceptAsync() => await _accepted.Reader.ReadAsync(RawHttp.Timeout());

    public ValueTask DisposeAsync() => _host.DisposeAsync();

    private static async Task AcceptAsync(HttpContext context, ChannelWriter<RawServerPeer> accepted, bool answerDeflate)
    {
        string offer = context.Request.Headers["Sec-WebSocket-Extensions"].ToString();
        bool deflate = answerDeflate && offer.Contains("permessage-deflate", StringComparison.Ordinal);
        if (deflate)
        {
            // A server must accept server_no_context_takeover when offered (RFC 7692 section 7.1.1.1); each message
            // this peer sends is compressed on its own anyway.
            context.Response.Headers["Sec-WebSocket-Extensions"] = offer.Contains("server_no_context_takeover", StringComparison.Ordinal)
                ? "permessage-deflate; server_no_context_takeover"
                : "permessage-deflate";
        }

        Stream stream;
        if (context.Features.Get<IHttpExtendedConnectFeature>() is { IsExtendedConnect: true } connect)
        {
            stream = await connect.AcceptAsync();
        }
        else
        {
            IHttpUpgradeFeature upgrade = context.Features.Get<IHttpUpgradeFeature>()!;
            string key = context.Request.Headers["Sec-WebSocket-Key"].ToString();
            context.Response.Headers["Upgrade"] = "websocket";
#pragma warning disable CA5350 // the RFC's own algorithm, computed here independently of the client under test
            context.Response.Headers["Sec-WebSocket-Accept"] = Convert.ToBase64String(
                SHA1.HashData(Encoding.ASCII.GetBytes(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")));
#pragma warning restore CA5350
            stream = await upgrade.UpgradeAsync();
        }

        var peer = new RawServerPeer(stream, deflate, context.Request.Protocol == "HTTP/2");
        await accepted.WriteAsync(peer);
        await peer.Ended; // returning ends the server's direction: the connection's FIN, or END_STREAM
    }
}

/// <summary>One websocket's server side, raw: what the test sends goes as it is; <see cref="Frames"/> reads the
/// client's frames.</summary>
internal sealed class RawServerPeer(Stream stream, bool deflate, bool http2)
{
    private readonly TaskCompletionSource _ended = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>The client's frames (masked, as the rules want of a client).</summary>
    public ContractFrameReader Frames { get; } = new(stream, WebSocketRole.Server, deflate);

    /// <summary>Asserts that the client gave this server up: the end of its direction, or over HTTP/2 the reset of the
    /// stream (a client that gives a peer up resets it: RFC 8441 section 5.1).</summary>
    public async Task AssertGivenUpAsync()
    {
        try
        {
            Assert.Null(await Frames.ReadFrameAsync());
        }
        catch (IOException) when (http2)
        {
            // RST_STREAM
        }
    }

    /// <summary>Whether permessage-deflate was accepted.</summary>
    public bool Deflate => deflate;

    /// <summary>Whether the websocket is an HTTP/2 stream.</summary>
    public bool IsHttp2 => http2;

    public Task Ended => _ended.Task;

    /// <summary>Sends bytes as they are.</summary>
    public async Task SendAsync(byte[] bytes)
    {
        await stream.WriteAsync(bytes, RawHttp.Timeout());
        await stream.FlushAsync(RawHttp.Timeout());
    }

    /// <summary>Sends one unmasked frame.</summary>
    public Task SendAsync(WebSocketOpcode opcode, string payload) => SendAsync(WireFrames.Server(opcode, Encoding.UTF8.GetBytes(payload)));

    /// <summary>Ends the server's direction as a server does after the close exchange: the connection's FIN (HTTP/1.1),
    /// END_STREAM (HTTP/2).</summary>
    public void End() => _ended.TrySetResult();
}
