package dev.mcpstdio.oauth;

import java.nio.file.FileSystems;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The creation attributes that make a new file or folder its owner's alone: 0600 and 0700 where
 * the file system has POSIX permissions, and none elsewhere (Windows: a file under the user's
 * profile inherits an ACL that keeps other users out, and asking for POSIX bits there fails).
 */
final class OwnerOnly {

  private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

  private OwnerOnly() {}

  static FileAttribute<?>[] file() {
    return POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
        : new FileAttribute<?>[0];
  }

  static FileAttribute<?>[] folder() {
    return POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))}
        : new FileAttribute<?>[0];
  }
}
