using System.Runtime.InteropServices;

namespace WebSocketCodec.Lean.Native;

/// <summary>
/// The array <c>epoll_wait</c> fills, in native memory. A <c>struct epoll_event</c> is packed on x86-64 (12 bytes: the
/// events, then the 64-bit data) and naturally aligned elsewhere (16 bytes), so it is read by offset, not as a C# struct.
/// </summary>
internal sealed unsafe class EpollEvents : IDisposable
{
    private static readonly int Stride = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? 12 : 16;
    private static readonly int DataOffset = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? 4 : 8;
    private byte* _events;

    public EpollEvents(int capacity)
    {
        Capacity = capacity;
        _events = (byte*)NativeMemory.AllocZeroed((nuint)(capacity * Stride));
    }

    public int Capacity { get; }

    public void* Pointer => _events;

    public uint Events(int index) => *(uint*)(_events + (index * Stride));

    public ulong Data(int index) => *(ulong*)(_events + (index * Stride) + DataOffset);

    /// <summary>Adds, changes or removes <paramref name="fd"/>'s registration.</summary>
    /// <returns>0, or the errno.</returns>
    public static int Control(int epoll, int operation, int fd, uint events, ulong data)
    {
        byte* ev = stackalloc byte[16];
        *(uint*)ev = events;
        *(ulong*)(ev + DataOffset) = data;
        return Libc.epoll_ctl(epoll, operation, fd, ev) == 0 ? 0 : Marshal.GetLastPInvokeError();
    }

    public void Dispose()
    {
        if (_events is not null)
        {
            NativeMemory.Free(_events);
            _events = null;
        }
    }
}
