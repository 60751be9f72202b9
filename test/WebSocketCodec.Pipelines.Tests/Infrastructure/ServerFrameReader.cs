namespace WebSocketCodec.Pipelines.Tests.Infrastructure;

/// <summary>Reads a server's frames off a <see cref="Loopback"/> as a client would, however the bytes are cut.</summary>
public sealed class ServerFrameReader(Loopback loop)
{
    private readonly List<byte> _pending = [];

    /// <summary>Reads until <paramref name="count"/> whole frames have arrived; returns them (payloads).</summary>
    public async Task<List<(WebSocketOpcode Opcode, byte[] Payload)>> ReadFramesAsync(int count, int seconds = 30)
    {
        var frames = new List<(WebSocketOpcode, byte[])>();
        while (true)
        {
            while (frames.Count < count && TryTake(out (WebSocketOpcode, byte[]) frame))
            {
                frames.Add(frame);
            }

            if (frames.Count == count)
            {
                return frames;
            }

            byte[] bytes = await loop.ReadAsync(1, seconds);
            Assert.True(bytes.Length > 0, $"the server's output ended after {frames.Count} of {count} frames");
            _pending.AddRange(bytes);
        }
    }

    private bool TryTake(out (WebSocketOpcode, byte[]) frame)
    {
        frame = default;
        if (_pending.Count < 2)
        {
            return false;
        }

        int length = _pending[1] & 0x7F;
        int header = 2;
        if (length == 126)
        {
            if (_pending.Count < 4)
            {
                return false;
            }

            length = (_pending[2] << 8) | _pending[3];
            header = 4;
        }
        else if (length == 127)
        {
            if (_pending.Count < 10)
            {
                return false;
            }

            length = (int)System.Buffers.Binary.BinaryPrimitives.ReadUInt64BigEndian([.. _pending.GetRange(2, 8)]);
            header = 10;
        }

        if (_pending.Count < header + length)
        {
            return false;
        }

        Assert.Equal(0, _pending[1] & 0x80); // a server never masks
        Assert.Equal(0x80, _pending[0] & 0x80); // whole messages
        frame = ((WebSocketOpcode)(_pending[0] & 0x0F), [.. _pending.GetRange(header, length)]);
        _pending.RemoveRange(0, header + length);
        return true;
    }
}
