import type { Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { utils, type Attributes, type FileEntry, type SFTPWrapper } from 'ssh2';
import { confinePath } from './sftp-paths';

const { STATUS_CODE, flagsToString } = utils.sftp;
const MAX_READ = 256 * 1024;
const NAMES_PER_READDIR = 100;

type Handle = { kind: 'file'; file: FileHandle } | { kind: 'dir'; path: string; entries?: FileEntry[] };

/**
 * Serves one SFTP session from `rootDir`: the request handlers a real server answers (OPEN, READ,
 * WRITE, CLOSE, OPENDIR, READDIR, STAT, LSTAT, FSTAT, REALPATH, RENAME, REMOVE, MKDIR, RMDIR), on
 * real files. Every path is confined to the root; SYMLINK and READLINK are refused so no link can
 * lead out of it.
 */
export function serveSftpSession(sftp: SFTPWrapper, rootDir: string): void {
  const handles = new Map<number, Handle>();
  let nextHandle = 1;

  const newHandle = (value: Handle): Buffer => {
    const id = nextHandle++;
    handles.set(id, value);
    const buffer = Buffer.alloc(4);
    buffer.writeUInt32BE(id, 0);
    return buffer;
  };
  const handleOf = (buffer: Buffer): Handle | undefined =>
    buffer.length === 4 ? handles.get(buffer.readUInt32BE(0)) : undefined;

  /** Runs a request; any thrown filesystem error becomes the matching SFTP status. */
  const answer = (reqId: number, work: () => Promise<void>): void => {
    work().catch((error: unknown) => sftp.status(reqId, statusOf(error), (error as Error).message));
  };
  const ok = (reqId: number): void => sftp.status(reqId, STATUS_CODE.OK);
  const confined = (reqId: number, path: string): string | undefined => {
    const result = confinePath(rootDir, path);
    if (result === undefined) sftp.status(reqId, STATUS_CODE.PERMISSION_DENIED, 'outside the served folder');
    return result?.real;
  };

  sftp
    .on('REALPATH', (reqId, path) => {
      const result = confinePath(rootDir, path);
      if (result === undefined)
        return sftp.status(reqId, STATUS_CODE.PERMISSION_DENIED, 'outside the served folder');
      sftp.name(reqId, [{ filename: result.virtual, longname: result.virtual, attrs: {} as Attributes }]);
    })
    .on('STAT', (reqId, path) => {
      const real = confined(reqId, path);
      if (real !== undefined) answer(reqId, async () => sftp.attrs(reqId, attributes(await stat(real))));
    })
    .on('LSTAT', (reqId, path) => {
      const real = confined(reqId, path);
      if (real !== undefined) answer(reqId, async () => sftp.attrs(reqId, attributes(await lstat(real))));
    })
    .on('OPENDIR', (reqId, path) => {
      const real = confined(reqId, path);
      if (real === undefined) return;
      answer(reqId, async () => {
        if (!(await stat(real)).isDirectory())
          throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
        sftp.handle(reqId, newHandle({ kind: 'dir', path: real }));
      });
    })
    .on('READDIR', (reqId, buffer) => {
      const handle = handleOf(buffer);
      if (handle?.kind !== 'dir') return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
      answer(reqId, async () => {
        handle.entries ??= await listDirectory(handle.path);
        const batch = handle.entries.splice(0, NAMES_PER_READDIR);
        if (batch.length === 0) sftp.status(reqId, STATUS_CODE.EOF);
        else sftp.name(reqId, batch);
      });
    })
    .on('OPEN', (reqId, path, flags) => {
      const real = confined(reqId, path);
      if (real === undefined) return;
      const mode = flagsToString(flags);
      if (mode === null) return sftp.status(reqId, STATUS_CODE.OP_UNSUPPORTED, 'unsupported open flags');
      answer(reqId, async () => {
        const file = await open(real, mode);
        if ((await file.stat()).isDirectory()) {
          await file.close();
          throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
        }
        sftp.handle(reqId, newHandle({ kind: 'file', file }));
      });
    })
    .on('READ', (reqId, buffer, offset, length) => {
      const handle = handleOf(buffer);
      if (handle?.kind !== 'file') return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
      answer(reqId, async () => {
        const data = Buffer.alloc(Math.min(length, MAX_READ));
        const { bytesRead } = await handle.file.read(data, 0, data.length, offset);
        if (bytesRead === 0) sftp.status(reqId, STATUS_CODE.EOF);
        else sftp.data(reqId, data.subarray(0, bytesRead));
      });
    })
    .on('WRITE', (reqId, buffer, offset, data) => {
      const handle = handleOf(buffer);
      if (handle?.kind !== 'file') return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
      answer(reqId, async () => {
        await handle.file.write(data, 0, data.length, offset);
        sftp.status(reqId, STATUS_CODE.OK);
      });
    })
    .on('FSTAT', (reqId, buffer) => {
      const handle = handleOf(buffer);
      if (handle?.kind !== 'file') return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
      answer(reqId, async () => sftp.attrs(reqId, attributes(await handle.file.stat())));
    })
    .on('CLOSE', (reqId, buffer) => {
      const handle = handleOf(buffer);
      if (handle === undefined) return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
      handles.delete(buffer.readUInt32BE(0));
      answer(reqId, async () => {
        if (handle.kind === 'file') await handle.file.close();
        sftp.status(reqId, STATUS_CODE.OK);
      });
    })
    .on('RENAME', (reqId, from, to) => {
      const source = confined(reqId, from);
      if (source === undefined) return;
      const target = confined(reqId, to);
      if (target === undefined) return;
      answer(reqId, async () => {
        // SFTP v3 rename does not overwrite: that is what makes upload-then-rename safe.
        if (await exists(target)) return sftp.status(reqId, STATUS_CODE.FAILURE, 'target already exists');
        await rename(source, target);
        sftp.status(reqId, STATUS_CODE.OK);
      });
    })
    .on('REMOVE', (reqId, path) => {
      const real = confined(reqId, path);
      if (real !== undefined)
        answer(reqId, async () => {
          await unlink(real);
          ok(reqId);
        });
    })
    .on('MKDIR', (reqId, path) => {
      const real = confined(reqId, path);
      if (real !== undefined)
        answer(reqId, async () => {
          await mkdir(real);
          ok(reqId);
        });
    })
    .on('RMDIR', (reqId, path) => {
      const real = confined(reqId, path);
      if (real !== undefined)
        answer(reqId, async () => {
          await rmdir(real);
          ok(reqId);
        });
    })
    // Attribute changes are accepted and ignored: clients send them after uploads, files keep ours.
    .on('SETSTAT', (reqId) => sftp.status(reqId, STATUS_CODE.OK))
    .on('FSETSTAT', (reqId) => sftp.status(reqId, STATUS_CODE.OK))
    .on('SYMLINK', (reqId) => sftp.status(reqId, STATUS_CODE.OP_UNSUPPORTED))
    .on('READLINK', (reqId) => sftp.status(reqId, STATUS_CODE.OP_UNSUPPORTED));

  sftp.on('close', () => {
    for (const handle of handles.values())
      if (handle.kind === 'file') void handle.file.close().catch(() => undefined);
    handles.clear();
  });
}

async function listDirectory(path: string): Promise<FileEntry[]> {
  const names = await readdir(path);
  const entries: FileEntry[] = [];
  for (const filename of names.sort()) {
    const stats = await lstat(`${path}/${filename}`).catch(() => undefined);
    if (stats === undefined) continue; // removed while listing
    entries.push({ filename, longname: longName(filename, stats), attrs: attributes(stats) });
  }
  return entries;
}

/** `ls -l` style line: clients such as ssh2-sftp-client read the file type from its first character. */
function longName(name: string, stats: Stats): string {
  const type = stats.isDirectory() ? 'd' : stats.isSymbolicLink() ? 'l' : '-';
  const bits = 'rwxrwxrwx'
    .split('')
    .map((c, i) => (stats.mode & (1 << (8 - i)) ? c : '-'))
    .join('');
  const date = stats.mtime.toISOString().slice(0, 16).replace('T', ' ');
  return `${type}${bits} 1 bank bank ${stats.size} ${date} ${name}`;
}

function attributes(stats: Stats): Attributes {
  return {
    mode: stats.mode,
    uid: stats.uid,
    gid: stats.gid,
    size: stats.size,
    atime: Math.floor(stats.atimeMs / 1000),
    mtime: Math.floor(stats.mtimeMs / 1000),
  };
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

function statusOf(error: unknown): number {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return STATUS_CODE.NO_SUCH_FILE;
  if (code === 'EACCES' || code === 'EPERM') return STATUS_CODE.PERMISSION_DENIED;
  return STATUS_CODE.FAILURE;
}
