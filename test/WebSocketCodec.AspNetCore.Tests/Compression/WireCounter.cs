using System.IO.Pipelines;
using Microsoft.AspNetCore.Connections;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>Counts the bytes a Kestrel listener reads from and writes to its sockets (handshakes included): a connection
/// middleware that puts counting streams between the transport and HTTP, so a test sees what was on the wire when the
/// peer does not say whether it compressed.</summary>
public sealed class WireCounter
{
    private long _read;
    private long _written;

    /// <summary>Bytes received from peers.</summary>
    public long Read => Interlocked.Read(ref _read);

    /// <summary>Bytes sent to peers.</summary>
    public long Written => Interlocked.Read(ref _written);

    /// <summary>The middleware, for <c>ListenOptions.Use</c>.</summary>
    public ConnectionDelegate Wrap(ConnectionDelegate next) => async connection =>
    {
        IDuplexPipe transport = connection.Transport;
        var input = new CountingStream(transport.Input.AsStream(), this);
        var output = new CountingStream(transport.Output.AsStream(), this);
        connection.Transport = new Pipe(PipeReader.Create(input), PipeWriter.Create(output));
        try
        {
            await next(connection);
        }
        finally
        {
            connection.Transport = transport;
        }
    };

    private sealed class Pipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input => input;

        public PipeWriter Output => output;
    }

    private sealed class CountingStream(Stream inner, WireCounter counter) : Stream
    {
        public override bool CanRead => inner.CanRead;

        public override bool CanSeek => false;

        public override bool CanWrite => inner.CanWrite;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            int read = await inner.ReadAsync(buffer, cancellationToken);
            Interlocked.Add(ref counter._read, read);
            return read;
        }

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

        public override int Read(byte[] buffer, int offset, int count)
        {
            int read = inner.Read(buffer, offset, count);
            Interlocked.Add(ref counter._read, read);
            return read;
        }

        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
        {
            Interlocked.Add(ref counter._written, buffer.Length);
            return inner.WriteAsync(buffer, cancellationToken);
        }

        public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

        public override void Write(byte[] buffer, int offset, int count)
        {
            Interlocked.Add(ref counter._written, count);
            inner.Write(buffer, offset, count);
        }

        public override Task FlushAsync(CancellationToken cancellationToken) => inner.FlushAsync(cancellationToken);

        public override void Flush() => inner.Flush();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                inner.Dispose();
            }

            base.Dispose(disposing);
        }
    }
}
