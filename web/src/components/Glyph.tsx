/**
 * The SVG of each icon name, from lucide-react, each icon imported by itself so
 * that only these are bundled. Loaded lazily through `Icon`.
 */
import {
  Archive,
  Bot,
  Check,
  ChevronLeft,
  CircleUser,
  Ellipsis,
  FilePen,
  Folder,
  FolderOpen,
  ImageOff,
  Inbox,
  LayoutGrid,
  List,
  ListTodo,
  Menu,
  MessagesSquare,
  Paperclip,
  Pencil,
  Scale,
  Send,
  SquarePen,
  Trash2,
  Wrench,
  X,
  type LucideIcon,
} from "lucide-react";
import type { IconName } from "./iconNames";

const GLYPHS: Record<IconName, LucideIcon> = {
  queue: ListTodo,
  inbox: Inbox,
  decisions: Scale,
  sent: Send,
  drafts: FilePen,
  archive: Archive,
  trash: Trash2,
  conversations: MessagesSquare,
  agents: Bot,
  admin: Wrench,
  account: CircleUser,
  compose: SquarePen,
  menu: Menu,
  close: X,
  list: List,
  cards: LayoutGrid,
  actions: Ellipsis,
  folder: Folder,
  folderOpen: FolderOpen,
  back: ChevronLeft,
  check: Check,
  edit: Pencil,
  attachment: Paperclip,
  imageBlocked: ImageOff,
};

export default function Glyph({ name, className }: { name: IconName; className: string }) {
  const Svg = GLYPHS[name];
  return <Svg aria-hidden="true" focusable="false" className={className} />;
}
