namespace WebSocketCodec;

/// <summary>What the compression streams share: no seeking, no length, nothing to flush; a derived class reads or
/// writes, not both.</summary>
internal abstract class OneWayStream : Stream
{
    public override bool CanSeek => false;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();
}
