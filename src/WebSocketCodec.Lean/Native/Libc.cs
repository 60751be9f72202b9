using System.Runtime.InteropServices;

namespace WebSocketCodec.Lean.Native;

/// <summary>The Linux system calls the lean transport makes (glibc's wrappers): epoll, eventfd, accept4, recv, writev,
/// shutdown, close, setsockopt. Every call sets errno (read with <see cref="Marshal.GetLastPInvokeError"/>).</summary>
internal static unsafe partial class Libc
{
    private const string Library = "libc.so.6";

    public const int EINTR = 4;
    public const int EAGAIN = 11;
    public const int ENFILE = 23;
    public const int EMFILE = 24;
    public const int ENOBUFS = 105;
    public const int ENOMEM = 12;

    public const int EPOLL_CLOEXEC = 0x80000;
    public const int EPOLL_CTL_ADD = 1;
    public const int EPOLL_CTL_DEL = 2;
    public const int EPOLL_CTL_MOD = 3;
    public const uint EPOLLIN = 0x001;
    public const uint EPOLLOUT = 0x004;
    public const uint EPOLLERR = 0x008;
    public const uint EPOLLHUP = 0x010;
    public const uint EPOLLRDHUP = 0x2000;
    public const uint EPOLLEXCLUSIVE = 1u << 28;

    public const int EFD_NONBLOCK = 0x800;
    public const int EFD_CLOEXEC = 0x80000;
    public const int SOCK_NONBLOCK = 0x800;
    public const int SOCK_CLOEXEC = 0x80000;

    public const int SOL_SOCKET = 1;
    public const int SO_LINGER = 13;
    public const int IPPROTO_TCP = 6;
    public const int TCP_NODELAY = 1;
    public const int TCP_INFO = 11;
    public const int MSG_NOSIGNAL = 0x4000;
    public const int SHUT_WR = 1;
    public const int SHUT_RDWR = 2;

    [LibraryImport(Library, SetLastError = true)]
    public static partial int epoll_create1(int flags);

    [LibraryImport(Library, SetLastError = true)]
    public static partial int epoll_ctl(int epfd, int op, int fd, void* ev);

    [LibraryImport(Library, SetLastError = true)]
    public static partial int epoll_wait(int epfd, void* events, int maxEvents, int timeout);

    [LibraryImport(Library, SetLastError = true)]
    public static partial int eventfd(uint initval, int flags);

    [LibraryImport(Library, SetLastError = true)]
    public static partial nint read(int fd, void* buffer, nint count);

    [LibraryImport(Library, SetLastError = true)]
    public static partial nint write(int fd, void* buffer, nint count);

    [LibraryImport(Library, SetLastError = true)]
    public static partial nint recv(int fd, void* buffer, nint length, int flags);

    [LibraryImport(Library, SetLastError = true)]
    public static partial nint send(int fd, void* buffer, nint length, int flags);

    [LibraryImport(Library, SetLastError = true)]
    public static partial nint writev(int fd, IoVec* vectors, int count);

    [LibraryImport(Library, SetLastError = true)]
    public static partial int accept4(int fd, void* address, uint* addressLength, int flags);

    [LibraryImport(Library, SetLastError = true)]
    public static partial int shutdown(int fd, int how);

    [LibraryImport(Library, SetLastError = true)]
    public static partial int close(int fd);

    [LibraryImport(Library, SetLastError = true)]
    public static partial int setsockopt(int fd, int level, int name, void* value, uint length);

    [LibraryImport(Library, SetLastError = true)]
    public static partial int getsockopt(int fd, int level, int name, void* value, uint* length);

    /// <summary>One buffer of a <c>writev</c>.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct IoVec
    {
        public void* Base;
        public nuint Length;
    }
}
