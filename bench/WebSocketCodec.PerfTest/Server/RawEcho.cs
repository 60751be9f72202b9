using System.Buffers;
using System.IO.Pipelines;
using System.Text;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;

namespace WebSocketCodec.PerfTest;

/// <summary>The baselines: echo the wire bytes without parsing them. <c>raw</c> on Kestrel's connection pipes (after a
/// canned 101): the transport's limit. <c>raw-upgrade</c> behind Kestrel's HTTP/1.1 upgrade stream: the endpoint path's
/// limit. <c>raw-upgrade</c> waits for input with zero-byte reads and rents its buffer per read, so an idle websocket
/// holds no buffer of its own.</summary>
internal static class RawEcho
{
    private static readonly byte[] SwitchingProtocols = Encoding.ASCII.GetBytes(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: raw\r\n\r\n");

    public static async Task ConnectionAsync(ConnectionContext connection)
    {
        PipeReader input = connection.Transport.Input;
        PipeWriter output = connection.Transport.Output;
        while (true)
        {
            ReadResult result = await input.ReadAsync();
            ReadOnlySequence<byte> buffer = result.Buffer;
            SequencePosition? end = FindHeadEnd(buffer);
            if (end is { } position)
            {
                input.AdvanceTo(position);
                await output.WriteAsync(SwitchingProtocols);
                break;
            }

            input.AdvanceTo(buffer.Start, buffer.End);
            if (result.IsCompleted)
            {
                return;
            }
        }

        while (true)
        {
            ReadResult result = await input.ReadAsync();
            foreach (ReadOnlyMemory<byte> segment in result.Buffer)
            {
                segment.Span.CopyTo(output.GetSpan(segment.Length));
                output.Advance(segment.Length);
            }

            input.AdvanceTo(result.Buffer.End);
            FlushResult flush = await output.FlushAsync();
            if (result.IsCompleted || flush.IsCompleted)
            {
                return;
            }
        }
    }

    /// <summary>The byte echo behind Kestrel's HTTP/1.1 upgrade, or on an HTTP/2 extended CONNECT stream
    /// (<c>raw-h2</c>: the HTTP/2 limit).</summary>
    public static async Task UpgradeAsync(HttpContext context)
    {
        Stream stream;
        if (context.Features.Get<IHttpExtendedConnectFeature>() is { IsExtendedConnect: true } connect)
        {
            stream = await connect.AcceptAsync();
        }
        else
        {
            // The real accept value, so a strict client (the scale tool's) takes the 101.
            string key = context.Request.Headers["Sec-WebSocket-Key"].ToString();
            context.Response.Headers.Connection = "Upgrade";
            context.Response.Headers.Upgrade = "websocket";
            context.Response.Headers["Sec-WebSocket-Accept"] = WebSocketHandshake.IsValidKey(key.AsSpan()) ? WebSocketHandshake.ComputeAccept(key) : "raw";
            stream = await context.Features.Get<IHttpUpgradeFeature>()!.UpgradeAsync();
        }

        await using var _ = stream;
        while (true)
        {
            // A zero-byte read waits for input without a buffer, so an idle websocket holds none (the buffer is
            // rented per read), as an idle-memory baseline must.
            int none = await stream.ReadAsync(Memory<byte>.Empty); // 0: input is there (or the end)
            byte[] buffer = ArrayPool<byte>.Shared.Rent(64 * 1024);
            try
            {
                int read = await stream.ReadAsync(buffer);
                if (read == 0)
                {
                    return;
                }

                await stream.WriteAsync(buffer.AsMemory(0, read));
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }
    }

    private static SequencePosition? FindHeadEnd(ReadOnlySequence<byte> buffer)
    {
        var reader = new SequenceReader<byte>(buffer);
        return reader.TryReadTo(out ReadOnlySequence<byte> _, "\r\n\r\n"u8, advancePastDelimiter: true) ? reader.Position : null;
    }
}
