using System.Buffers;
using System.IO.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>Tells an HTTP/2 prior-knowledge connection (RFC 9113 section 3.3: it opens with the 24-byte preface) from
/// an HTTP/1.1 one by its first bytes, without consuming them.</summary>
internal static class Http2PrefaceDetector
{
    private static ReadOnlySpan<byte> Preface => "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"u8;

    /// <summary>Reads until the bytes match the preface (true), differ from it (false), or the peer ends its side
    /// (false). Everything read stays in <paramref name="input"/>, unexamined, for the protocol that takes over.</summary>
    public static async ValueTask<bool> IsHttp2Async(PipeReader input, CancellationToken cancellationToken)
    {
        while (true)
        {
            ReadResult result = await input.ReadAsync(cancellationToken).ConfigureAwait(false);
            ReadOnlySequence<byte> buffer = result.Buffer;
            bool? verdict = Classify(buffer);
            if (verdict is null && !result.IsCompleted && !result.IsCanceled)
            {
                // A prefix of the preface so far: wait for more.
                input.AdvanceTo(buffer.Start, buffer.End);
                continue;
            }

            // Nothing consumed and nothing examined, so the next reader's first ReadAsync returns these bytes at once.
            input.AdvanceTo(buffer.Start);
            return verdict == true;
        }
    }

    /// <summary>True for the whole preface, false as soon as a byte differs, null for a strict prefix of it.</summary>
    internal static bool? Classify(ReadOnlySequence<byte> buffer)
    {
        Span<byte> head = stackalloc byte[24];
        int length = (int)Math.Min(buffer.Length, head.Length);
        buffer.Slice(0, length).CopyTo(head);
        if (!head[..length].SequenceEqual(Preface[..length]))
        {
            return false;
        }

        return length == Preface.Length ? true : null;
    }
}
