using System.Buffers.Binary;
using System.IO.Compression;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>
/// A permessage-deflate client of the test's own over a raw socket, sharing no code with the library: it sends an
/// offer as given, keeps the server's answer, compresses each whole message with <see cref="DeflateStream"/> (sync
/// flush, tail stripped, RFC 7692 §7.2.1) and splits the compressed bytes into frames of a given size (the first with
/// RSV1, the rest continuations), and reads the server's frames, inflating the compressed messages.
/// </summary>
public sealed class RawDeflateClient : IDisposable
{
    private static readonly byte[] Tail = [0x00, 0x00, 0xFF, 0xFF];
    private readonly Socket _socket;
    private readonly NetworkStream _stream;
    private readonly byte[] _header = new byte[14];
    private MemoryStream? _compressedSink;
    private DeflateStream? _compressor;
    private FeedStream? _inflateSource;
    private DeflateStream? _inflater;

    private RawDeflateClient(Socket socket, string head)
    {
        _socket = socket;
        _stream = new NetworkStream(socket, ownsSocket: false);
        Head = head;
        foreach (string line in head.Split("\r\n"))
        {
            if (line.StartsWith("Sec-WebSocket-Extensions:", StringComparison.OrdinalIgnoreCase))
            {
                Answer = line["Sec-WebSocket-Extensions:".Length..].Trim();
            }
        }
    }

    /// <summary>The 101 (or whatever came back).</summary>
    public string Head { get; }

    /// <summary>The server's <c>Sec-WebSocket-Extensions</c> (null: none).</summary>
    public string? Answer { get; }

    /// <summary>Whether this client compresses: set from the answer by the test.</summary>
    public bool Compress { get; set; }

    /// <summary>This client keeps its compression context between messages.</summary>
    public bool KeepContext { get; set; }

    /// <summary>This client compresses only messages up to this length (its window is below 15 bits: each message then
    /// starts afresh and cannot refer further back than the window).</summary>
    public int CompressUpTo { get; set; } = int.MaxValue;

    /// <summary>The server keeps its context: inflate with one inflater for the whole websocket.</summary>
    public bool ServerKeepsContext { get; set; } = true;

    public static async Task<RawDeflateClient> ConnectAsync(IPEndPoint endPoint, string? offer)
    {
        Socket socket = await RawHttp.ConnectAsync(endPoint);
        string extra = offer is null ? "" : $"Sec-WebSocket-Extensions: {offer}\r\n";
        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/echo", extra)), RawHttp.Timeout());
        string head = await RawHttp.ReadHeadAsync(socket);
        Assert.StartsWith("HTTP/1.1 101", head, StringComparison.Ordinal);
        return new RawDeflateClient(socket, head);
    }

    /// <summary>Sends bytes as they are (frames made with <see cref="WireFrames"/>).</summary>
    public ValueTask SendRawAsync(byte[] bytes) => _stream.WriteAsync(bytes, RawHttp.Timeout());

    /// <summary>Sends one message, compressed when <see cref="Compress"/> allows, split into frames of
    /// <paramref name="fragment"/> wire bytes (0: one frame).</summary>
    /// <returns>Whether it went compressed.</returns>
    public async Task<bool> SendAsync(WebSocketOpcode opcode, byte[] message, int fragment, CancellationToken cancellationToken)
    {
        bool compressed = Compress && message.Length <= CompressUpTo;
        byte[] wire = compressed ? Deflate(message) : message;
        int size = fragment == 0 ? Math.Max(1, wire.Length) : fragment;
        int offset = 0;
        do
        {
            int length = Math.Min(size, wire.Length - offset);
            bool first = offset == 0;
            bool fin = offset + length == wire.Length;
            byte head = (byte)((fin ? 0x80 : 0) | (first && compressed ? 0x40 : 0) | (first ? (int)opcode : 0));
            await _stream.WriteAsync(WireFrames.Client(head, wire.AsSpan(offset, length)), cancellationToken);
            offset += length;
        }
        while (offset < wire.Length);
        return compressed;
    }

    /// <summary>Reads the next data message (answering nothing else): its opcode, whether it was compressed, its
    /// payload (inflated); or a Close: its opcode and payload.</summary>
    public async Task<(WebSocketOpcode Opcode, bool Compressed, byte[] Payload)> ReceiveAsync(CancellationToken cancellationToken)
    {
        var payload = new MemoryStream();
        WebSocketOpcode opcode = 0;
        bool compressed = false;
        while (true)
        {
            (byte first, byte[] frame) = await ReadFrameAsync(cancellationToken);
            var frameOpcode = (WebSocketOpcode)(first & 0x0F);
            if (frameOpcode == WebSocketOpcode.Close)
            {
                return (frameOpcode, false, frame);
            }

            if (frameOpcode is WebSocketOpcode.Ping or WebSocketOpcode.Pong)
            {
                continue;
            }

            if (frameOpcode != WebSocketOpcode.Continuation)
            {
                opcode = frameOpcode;
                compressed = (first & 0x40) != 0;
            }
            else
            {
                Assert.Equal(0, first & 0x70); // RSV clear on continuations
            }

            payload.Write(frame);
            if ((first & 0x80) != 0)
            {
                return (opcode, compressed, compressed ? Inflate(payload.ToArray()) : payload.ToArray());
            }
        }
    }

    /// <summary>Reads frames until the server's Close and returns its status (1005 without one, -1 when the connection
    /// ended without a Close).</summary>
    public async Task<int> ReadCloseStatusAsync()
    {
        try
        {
            while (true)
            {
                (byte first, byte[] frame) = await ReadFrameAsync(RawHttp.Timeout(10));
                if ((first & 0x0F) == (int)WebSocketOpcode.Close)
                {
                    return WireFrames.CloseStatusOf(frame);
                }
            }
        }
        catch (EndOfStreamException)
        {
            return -1;
        }
    }

    /// <summary>Sends a Close and reads until the server closes the connection.</summary>
    public async Task CloseAsync(ushort status = 1000)
    {
        try
        {
            await _stream.WriteAsync(WireFrames.ClientClose(status), RawHttp.Timeout());
            byte[] buffer = new byte[4096];
            while (await _stream.ReadAsync(buffer, RawHttp.Timeout()) > 0)
            {
            }
        }
        catch (IOException)
        {
            // The server may have reset after its own Close: nothing to read any more.
        }
    }

    private async Task<(byte First, byte[] Payload)> ReadFrameAsync(CancellationToken cancellationToken)
    {
        await _stream.ReadExactlyAsync(_header.AsMemory(0, 2), cancellationToken);
        Assert.Equal(0, _header[1] & 0x80); // a server does not mask
        long length = _header[1] & 0x7F;
        if (length == 126)
        {
            await _stream.ReadExactlyAsync(_header.AsMemory(2, 2), cancellationToken);
            length = BinaryPrimitives.ReadUInt16BigEndian(_header.AsSpan(2));
        }
        else if (length == 127)
        {
            await _stream.ReadExactlyAsync(_header.AsMemory(2, 8), cancellationToken);
            length = BinaryPrimitives.ReadInt64BigEndian(_header.AsSpan(2));
        }

        byte[] payload = new byte[checked((int)length)];
        await _stream.ReadExactlyAsync(payload, cancellationToken);
        return (_header[0], payload);
    }

    private byte[] Deflate(byte[] message)
    {
        if (!KeepContext || _compressor is null)
        {
            _compressor?.Dispose();
            _compressedSink = new MemoryStream();
            _compressor = new DeflateStream(_compressedSink, CompressionLevel.Optimal, leaveOpen: true);
        }

        _compressedSink!.SetLength(0);
        _compressor.Write(message);
        _compressor.Flush(); // a sync flush: the output ends with 00 00 FF FF
        byte[] output = _compressedSink.ToArray();
        if (output.AsSpan().EndsWith(Tail))
        {
            return output[..^4];
        }

        Assert.Empty(output); // a flush with nothing new: nothing at all
        return [0x00]; // RFC 7692 §7.2.3.6: an empty deflate block
    }

    private byte[] Inflate(byte[] compressed)
    {
        if (!ServerKeepsContext || _inflater is null)
        {
            _inflater?.Dispose();
            _inflateSource = new FeedStream();
            _inflater = new DeflateStream(_inflateSource, CompressionMode.Decompress, leaveOpen: true);
        }

        _inflateSource!.Feed([.. compressed, .. Tail]);
        var output = new MemoryStream();
        byte[] buffer = new byte[64 * 1024];
        int read;
        while ((read = _inflater.Read(buffer)) > 0)
        {
            output.Write(buffer, 0, read);
        }

        return output.ToArray();
    }

    public void Dispose()
    {
        _compressor?.Dispose();
        _inflater?.Dispose();
        _stream.Dispose();
        _socket.Dispose();
    }

    /// <summary>A source that returns what it was fed, then 0 until fed again.</summary>
    private sealed class FeedStream : Stream
    {
        private byte[] _bytes = [];
        private int _position;

        public void Feed(byte[] bytes)
        {
            _bytes = bytes;
            _position = 0;
        }

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override int Read(Span<byte> buffer)
        {
            int count = Math.Min(buffer.Length, _bytes.Length - _position);
            _bytes.AsSpan(_position, count).CopyTo(buffer);
            _position += count;
            return count;
        }

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
