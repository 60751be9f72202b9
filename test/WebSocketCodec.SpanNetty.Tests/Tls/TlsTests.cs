using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using System.Text;
using WebSocketCodec.Samples.SpanNettyEchoServer;

namespace WebSocketCodec.SpanNetty.Tests.Tls;

/// <summary>
/// SslStreamHandler where SpanNetty's TlsHandler stalls: with TLS 1.3 the client's upgrade request arrives in the same
/// TCP segment as the end of its handshake (its Finished: the client's last flight is held and sent together with the
/// request, so this happens every time); with TLS 1.2 the request follows the handshake at once. Both transports.
/// </summary>
public sealed class TlsTests : LeakCheckedTests
{
    [Theory]
    [InlineData(SslProtocols.Tls13, "socket")]
    [InlineData(SslProtocols.Tls12, "socket")]
    [InlineData(SslProtocols.Tls13, "libuv")]
    [InlineData(SslProtocols.Tls12, "libuv")]
    public async Task AnUpgradeRequestSentWithTheClientsFinishedIsServedAtOnce(SslProtocols protocol, string transport)
    {
        await using SpanNettyEchoHost server = await SpanNettyEchoHost.StartAsync(new SpanNettyEchoOptions { Port = 0, Tls = true, Transport = transport, Threads = 1 });
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(new IPEndPoint(IPAddress.Loopback, server.Url.Port));
        bool join = protocol == SslProtocols.Tls13; // in TLS 1.2 the server's Finished ends the handshake
        var joining = new JoiningStream(new NetworkStream(socket, ownsSocket: false), join);
        using var tls = new SslStream(joining);
        await tls.AuthenticateAsClientAsync(new SslClientAuthenticationOptions
        {
            TargetHost = "localhost",
            EnabledSslProtocols = protocol,
            RemoteCertificateValidationCallback = (_, _, _, _) => true,
        }, Timeout());
        Assert.Equal(protocol, tls.SslProtocol);
        joining.HandshakeDone();

        byte[] frame = WireFrames.Client(WebSocketOpcode.Text, "with the handshake"u8);
        await tls.WriteAsync(Encoding.ASCII.GetBytes(
            "GET /echo HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            .Concat(frame).ToArray(), Timeout());
        Assert.True(!join || joining.JoinedWrites == 1, "the request did not travel with the end of the handshake");

        var received = new List<byte>();
        byte[] buffer = new byte[4096];
        while (true)
        {
            int read = await tls.ReadAsync(buffer, Timeout()); // a stall shows as the timeout here
            Assert.NotEqual(0, read);
            received.AddRange(buffer.AsSpan(0, read).ToArray());
            string text = Encoding.ASCII.GetString(received.ToArray());
            int headEnd = text.IndexOf("\r\n\r\n", StringComparison.Ordinal);
            if (headEnd >= 0 && received.Count >= headEnd + 4 + 2 + 18)
            {
                Assert.StartsWith("HTTP/1.1 101 ", text);
                var echoed = Assert.Single(WireFrames.Read(received.ToArray().AsSpan(headEnd + 4), WebSocketRole.Client));
                Assert.Equal("with the handshake", Encoding.UTF8.GetString(echoed.Payload));
                break;
            }
        }
    }

    private static CancellationToken Timeout() => new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token;

    /// <summary>With <paramref name="join"/>: holds every write made after the first read (the client's last handshake
    /// flight) and, once the handshake is done, sends it with the next write (the application's first bytes) in one
    /// socket send.</summary>
    private sealed class JoiningStream(Stream inner, bool join) : Stream
    {
        private readonly List<byte> _held = [];
        private bool _armed;
        private bool _done;

        public int JoinedWrites { get; private set; }

        public override bool CanRead => true;

        public override bool CanWrite => true;

        public override bool CanSeek => false;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

        public void HandshakeDone() => _done = true;

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            int read = await inner.ReadAsync(buffer, cancellationToken);
            _armed = join;
            return read;
        }

        public override async ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
        {
            if (!_armed)
            {
                await inner.WriteAsync(buffer, cancellationToken);
                return;
            }

            _held.AddRange(buffer.Span);
            if (_done)
            {
                byte[] joined = [.. _held];
                _held.Clear();
                _armed = false;
                JoinedWrites++;
                await inner.WriteAsync(joined, cancellationToken);
            }
        }

        public override Task FlushAsync(CancellationToken cancellationToken) => inner.FlushAsync(cancellationToken);

        public override void Flush() => inner.Flush();

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();
    }
}
